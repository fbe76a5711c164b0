package io.cachegate.gateway.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Policy;
import io.cachegate.config.Ticker;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.gateway.telemetry.trace.RequestTrace;
import io.cachegate.gateway.telemetry.trace.StageSpan;
import io.cachegate.gateway.telemetry.trace.Traces;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.net.URI;
import org.junit.jupiter.api.Test;

class TelemetryTest {

    private static final String BACKEND = """
            backends:
              - {name: main, urls: ["http://127.0.0.1:9"], model_version: "m@1"}
            """;

    @Test
    void observer_withoutEndpoint_isNoneAndStagesGetTheOffTrace() {
        Policy policy = Exchanges.policy(BACKEND);
        try (Telemetry telemetry = new Telemetry(policy, new GatewayMetrics(), Ticker.system());
             Exchanges exchanges = new Exchanges(policy)) {
            assertThat(telemetry.tracing()).isFalse();
            Exchange x = exchanges.chat(Exchanges.chatBody("m", "hi"), "traceparent",
                    "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
            telemetry.observer(policy).started(x); // what the exchange's constructor does

            RequestTrace trace = Traces.of(x);

            assertThat(trace).isSameAs(RequestTrace.OFF);
            assertThat(trace.start("cache.exact.lookup")).isSameAs(StageSpan.NONE);
            assertThat(trace.origin()).isNull();
            HttpHeaders upstream = new DefaultHttpHeaders().set("traceparent", "client's");
            trace.upstreamCall(URI.create("http://127.0.0.1:9"), "m", upstream);
            assertThat(upstream.get("traceparent")).as("passed through untouched").isEqualTo("client's");
        }
    }

    @Test
    void observer_withEndpoint_isRegistered() {
        Policy policy = Exchanges.policy(BACKEND + """
                telemetry: {otlp: {endpoint: "http://127.0.0.1:9", timeout: 1s}}
                """);
        try (Telemetry telemetry = new Telemetry(policy, new GatewayMetrics(), Ticker.system())) {
            assertThat(telemetry.tracing()).isTrue();
        }
    }
}
