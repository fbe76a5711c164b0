package io.cachegate.gateway.telemetry.log;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TraceParentTest {

    @Test
    void traceId_wellFormed_isTheSecondField() {
        assertThat(TraceParent.traceId("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
                .isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
    }

    @Test
    void traceId_malformedOrZero_isNull() {
        assertThat(TraceParent.traceId(null)).isNull();
        assertThat(TraceParent.traceId("00-00000000000000000000000000000000-00f067aa0ba902b7-01")).isNull();
        assertThat(TraceParent.traceId("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01")).isNull();
        assertThat(TraceParent.traceId("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")).isNull();
        assertThat(TraceParent.traceId("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7")).isNull();
        assertThat(TraceParent.traceId("garbage")).isNull();
    }
}
