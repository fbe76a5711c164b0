package io.cachegate.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Policy;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.exchange.RecordingNext;
import io.cachegate.routing.ServeReason;
import java.net.URI;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A degrade in overload along a fallback chain: main's chain is small, then tiny. Every backend takes one request
 * at a time with a queue of one, and overload is entered as soon as a tick sees a token pending, so filling a
 * backend and ticking overloads it.
 */
class FallbackChainAdmissionTest {

    private static final Policy POLICY = Exchanges.policy("""
            server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1}
            backends:
              - {name: main, urls: ["http://main-a:8000"], models: ["llama-3.1-8b"], model_version: "llama@1",
                 max_concurrency: 1}
              - {name: small, urls: ["http://small-a:8000"], models: ["small-model"], model_version: "small@1",
                 max_concurrency: 1}
              - {name: tiny, urls: ["http://tiny-a:8000"], models: ["qwen2.5-0.5b"], model_version: "tiny@1",
                 max_concurrency: 1}
            classes:
              interactive: {priority: 0, max_queue_time: 30s, max_queue_depth: 1, may_degrade: true}
            admission:
              enabled: true
              overload: {enter_pending_tokens: 1, exit_pending_tokens: 0, enter_after: 0s, exit_after: 30s}
            routes:
              - match: {model: "llama-3.1-8b"}
                backend: main
                fallbacks: [{backend: small, model: small-model}, {backend: tiny, model: qwen2.5-0.5b}]
              - match: {model: "small-model"}
                backend: small
            """);

    private final Exchanges exchanges = new Exchanges(POLICY);
    private final Backends backends = new Backends(POLICY, exchanges.metrics(), exchanges.ticker());
    private final AdmissionStage stage = new AdmissionStage(new ServePlanner(POLICY, backends));
    private final RecordingNext next = new RecordingNext();

    @AfterEach
    void close() {
        exchanges.close();
    }

    @Test
    void handle_primaryOverloaded_degradesToTheFirstHop() {
        fill("llama-3.1-8b");
        backends.tick();

        ServePlan plan = planned("llama-3.1-8b");

        assertThat(plan.target().reason()).isEqualTo(ServeReason.DEGRADED);
        assertThat(plan.serving().name()).isEqualTo("small");
        assertThat(plan.target().hop()).isEqualTo(1);
    }

    @Test
    void handle_primaryAndFirstHopOverloaded_degradesToTheSecondHop() {
        fill("llama-3.1-8b");
        fill("small-model");
        backends.tick();

        Exchange x = exchanges.chat(Exchanges.chatBody("llama-3.1-8b", "while both are overloaded"));
        stage.handle(x, next);

        ServePlan plan = x.get(ServePlan.KEY);
        assertThat(plan.serving().name()).isEqualTo("tiny");
        assertThat(plan.servedModel()).isEqualTo("qwen2.5-0.5b");
        assertThat(plan.target().hop()).isEqualTo(2);
        assertThat(x.lease().replica()).isEqualTo(URI.create("http://tiny-a:8000"));
        assertThat(x.record().fallbackHop()).as("the access log's fallback_hop").isEqualTo(2);
        assertThat(exchanges.count("cachegate.fallbacks", "reason", "degraded")).isEqualTo(1);
    }

    /** One request admitted and one queued on the backend serving {@code model}: tokens pending there. */
    private void fill(String model) {
        for (int i = 0; i < 2; i++) {
            stage.handle(exchanges.chat(Exchanges.chatBody(model, "filler " + i)), next);
        }
    }

    private ServePlan planned(String model) {
        Exchange x = exchanges.chat(Exchanges.chatBody(model, "while overloaded"));
        stage.handle(x, next);
        return x.get(ServePlan.KEY);
    }
}
