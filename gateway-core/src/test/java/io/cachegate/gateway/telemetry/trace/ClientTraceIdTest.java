package io.cachegate.gateway.telemetry.trace;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import org.junit.jupiter.api.Test;

/** The client's trace id for the access log of an untraced request, read by OpenTelemetry's W3C propagator. */
class ClientTraceIdTest {

    private static String traceId(String traceparent) {
        DefaultHttpHeaders headers = new DefaultHttpHeaders();
        if (traceparent != null) {
            headers.set("traceparent", traceparent);
        }
        return Traces.clientTraceId(headers);
    }


    @Test
    void traceId_wellFormed_isTheSecondField() {
        assertThat(traceId("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
                .isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
    }

    @Test
    void traceId_malformedOrZero_isNull() {
        assertThat(traceId(null)).isNull();
        assertThat(traceId("00-00000000000000000000000000000000-00f067aa0ba902b7-01")).isNull();
        assertThat(traceId("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01")).isNull();
        assertThat(traceId("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")).isNull();
        assertThat(traceId("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7")).isNull();
        assertThat(traceId("garbage")).isNull();
    }
}
