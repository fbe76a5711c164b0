package io.cachegate.gateway.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Policy;
import io.cachegate.config.Ticker;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.ExchangeObserver;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.exchange.Stage;
import io.cachegate.gateway.exchange.StageChain;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.gateway.telemetry.trace.RequestTrace;
import io.cachegate.gateway.telemetry.trace.StageSpan;
import io.cachegate.gateway.telemetry.trace.Traces;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
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

    /** A stage nobody wrote metrics or tracing for: it holds the request a while, then refuses it. */
    private static final class HoldingStage implements Stage {
        @Override
        public void handle(Exchange x, Next next) {
            x.resume(() -> {
                x.record().reason("held_too_long");
                x.retryLater(ErrorKind.QUEUE_FULL, "full", 1);
            });
        }
    }

    /** Passes the request on at once. */
    private static final class PassingStage implements Stage {
        @Override
        public void handle(Exchange x, Next next) {
            next.proceed(x);
        }
    }

    @Test
    void aNewStage_isCountedTimedAndTraced_withoutALineOfItsOwn() {
        Policy policy = Exchanges.policy(BACKEND + """
                telemetry: {sampling: 1.0, otlp: {endpoint: "http://127.0.0.1:9"}}
                """);
        InMemorySpanExporter spans = InMemorySpanExporter.create();
        GatewayMetrics metrics = new GatewayMetrics();
        try (Exchanges exchanges = new Exchanges(policy)) {
            try (Telemetry telemetry = Telemetry.forTesting(policy, metrics, Ticker.system(), spans)) {
                ExchangeObserver observer = telemetry.observer(policy);
                Exchange x = exchanges.chat(Exchanges.chatBody("m", "hi"));
                observer.started(x); // what the exchange's constructor does with the gateway's observer

                StageChain.of(new PassingStage(), new HoldingStage()).start(x);
                Exchanges.runPending(x);
                observer.finished(x, 429, x.elapsedNanos());

                assertThat(spans.getFinishedSpanItems()).extracting(SpanData::getName)
                        .as("a span for the stage that held and answered, none for the one that passed at once")
                        .contains("stage.holding").doesNotContain("stage.passing");
                SpanData held = spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals("stage.holding"))
                        .findFirst().orElseThrow();
                assertThat(held.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
                assertThat(held.getStatus().getDescription()).isEqualTo("held_too_long");
                for (String stage : new String[] {"passing", "holding"}) {
                    assertThat(metrics.registry().find("cachegate.stage.duration").tag("stage", stage).functionTimer())
                            .as(stage).isNotNull().extracting(t -> t.count()).isEqualTo(1.0);
                }
            } // an in-memory exporter forgets its spans when closed: asserted before
        } finally {
            metrics.close();
        }
    }
}
