package io.cachegate.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.admission.RejectReason;
import io.cachegate.config.HealthSettings;
import io.cachegate.config.Policy;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.exchange.Exchanges.Written;
import io.cachegate.gateway.exchange.RecordingNext;
import io.cachegate.gateway.exchange.ResponseTap;
import io.cachegate.routing.ServeReason;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The admission stage on exchanges: a backend of one replica that takes one request at a time, a class queue of
 * one, and overload entered as soon as a tick sees one token pending (so a test enters it without waiting).
 */
class AdmissionStageTest {

    private static final Policy POLICY = Exchanges.policy("""
            server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1}
            backends:
              - {name: main, urls: ["http://replica-a:8000"], models: ["llama-3.1-8b"], model_version: "llama@1",
                 max_concurrency: 1}
              - {name: small, urls: ["http://small-a:8000"], model_version: "small@1"}
            classes:
              interactive: {priority: 0, max_queue_time: 30s, max_queue_depth: 1, may_degrade: true}
            admission:
              enabled: true
              overload: {enter_pending_tokens: 1, exit_pending_tokens: 0, enter_after: 0s, exit_after: 30s}
            routes:
              - match: {model: "llama-3.1-8b"}
                backend: main
                fallback: small
                fallback_model: qwen2.5-0.5b
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
    void handle_capacityFree_admitsWithAReservedReplica() {
        Exchange x = exchanges.chat(chat("first"));

        stage.handle(x, next);

        assertThat(next.count(x)).isEqualTo(1);
        assertThat(x.lease()).isNotNull();
        assertThat(x.lease().replica()).isEqualTo(URI.create("http://replica-a:8000"));
        ServePlan plan = x.get(ServePlan.KEY);
        assertThat(plan.serving().name()).isEqualTo("main");
        assertThat(plan.target().reason()).isEqualTo(ServeReason.PRIMARY);
    }

    @Test
    void handle_capacityBusy_queuesUntilReleased_thenResumesOnItsEventLoop() {
        Exchange first = exchanges.chat(chat("first"));
        Exchange second = exchanges.chat(chat("second"));
        stage.handle(first, next);

        stage.handle(second, next);
        assertThat(next.exchanges()).as("queued").containsExactly(first);
        assertThat(second.lease()).isNull();
        exchanges.ticker().advance(Duration.ofMillis(250));
        first.finish(200); // gives its replica back: admission dispatches the queued request
        assertThat(next.exchanges()).as("not before its own event loop runs it").containsExactly(first);
        Exchanges.runPending(second);

        assertThat(next.exchanges()).containsExactly(first, second);
        assertThat(second.lease()).isNotNull();
        assertThat(Exchanges.written(second).nothing()).isTrue();
        // Queued 250 ms by the fake clock.
        assertThat(exchanges.metrics().registry().get("cachegate.queue.wait").tag("class", "interactive").timer()
                .totalTime(TimeUnit.MILLISECONDS)).isEqualTo(250);
    }

    @Test
    void handle_queueFull_answers429WithRetryAfter() {
        Exchange first = exchanges.chat(chat("first"));
        Exchange second = exchanges.chat(chat("second"));
        Exchange third = exchanges.chat(chat("third"));
        stage.handle(first, next);
        stage.handle(second, next);

        stage.handle(third, next);

        Written written = Exchanges.written(third);
        assertThat(next.exchanges()).containsExactly(first);
        assertThat(written.status()).isEqualTo(429);
        assertThat(Long.parseLong(written.header(HttpHeaderNames.RETRY_AFTER))).isBetween(1L, 60L);
        assertThat(written.body()).contains("\"code\":\"queue_full\"");
        assertThat(third.isDone()).isTrue();
        assertThat(exchanges.requestsFinished("status", "429")).isEqualTo(1);
    }

    @Test
    void handle_clientLeavesWhileQueued_leavesTheQueue() {
        Exchange first = exchanges.chat(chat("first"));
        Exchange second = exchanges.chat(chat("second"));
        Exchange third = exchanges.chat(chat("third"));
        stage.handle(first, next);
        stage.handle(second, next);

        second.cancel();
        stage.handle(third, next);

        assertThat(exchanges.requestsFinished("status", "499")).isEqualTo(1);
        assertThat(Exchanges.written(third).nothing()).as("queued in the place the second left").isTrue();
        first.finish(200);
        Exchanges.runPending(second);
        Exchanges.runPending(third);
        assertThat(next.exchanges()).containsExactly(first, third);
    }

    @Test
    void handle_overloadedAndTheClassMayDegrade_servesTheFallbackModel() {
        Exchange first = exchanges.chat(chat("first"));
        Exchange second = exchanges.chat(chat("second"));
        stage.handle(first, next);
        stage.handle(second, next); // one request waiting: one token pending and more
        backends.tick(); // overload entered (enter_after: 0s)
        Exchange degraded = exchanges.chat(chat("while overloaded"));
        RecordingTap tap = new RecordingTap();
        degraded.addTap(tap);

        stage.handle(degraded, next);

        assertThat(next.count(degraded)).isEqualTo(1);
        ServePlan plan = degraded.get(ServePlan.KEY);
        assertThat(plan.target().reason()).isEqualTo(ServeReason.DEGRADED);
        assertThat(plan.serving().name()).isEqualTo("small");
        assertThat(plan.servedModel()).isEqualTo("qwen2.5-0.5b");
        assertThat(plan.requestedModel()).isEqualTo("llama-3.1-8b");
        assertThat(degraded.lease().replica()).isEqualTo(URI.create("http://small-a:8000"));
        assertThat(degraded.request().content().toString(StandardCharsets.UTF_8))
                .contains("\"model\":\"qwen2.5-0.5b\"").doesNotContain("llama-3.1-8b");
        assertThat(tap.fallbacks).as("the cache files the answer under the model that gives it")
                .containsExactly("small/qwen2.5-0.5b");
        assertThat(exchanges.count("cachegate.fallbacks", "reason", "degraded")).isEqualTo(1);
    }

    /** A cacheable chat request of about 20 tokens: cheap enough never to wait too long for the drain rate. */
    private static String chat(String message) {
        return Exchanges.chatBody("llama-3.1-8b", message);
    }

    /** Records the fallbacks a tap is told about. */
    private static final class RecordingTap implements ResponseTap {
        final List<String> fallbacks = new ArrayList<>();

        @Override
        public void onFallback(String backend, String model) {
            fallbacks.add(backend + "/" + model);
        }

        @Override
        public void onHead(HttpResponse head) {
        }

        @Override
        public void onContent(ByteBuf content) {
        }

        @Override
        public void onComplete() {
        }

        @Override
        public void onAbort() {
        }
    }

    @Test
    void retryAfterAllDown_isTheNextProbe_orEjectForWhenSooner_atLeastASecond() {
        assertThat(AdmissionStage.retryAfterAllDown(health(Duration.ofSeconds(5), Duration.ofSeconds(10)))).isEqualTo(5);
        assertThat(AdmissionStage.retryAfterAllDown(health(Duration.ofSeconds(30), Duration.ofSeconds(10))))
                .isEqualTo(10);
        assertThat(AdmissionStage.retryAfterAllDown(health(Duration.ofMillis(200), Duration.ofSeconds(10))))
                .isEqualTo(1);
    }

    private static HealthSettings health(Duration interval, Duration ejectFor) {
        return new HealthSettings(HealthSettings.DEFAULT_PATH, interval, 3, ejectFor);
    }

    @Test
    void errorKind_hasTheStatusAdmissionGivesTheReason() {
        for (RejectReason reason : RejectReason.values()) {
            if (reason != RejectReason.CANCELLED) {
                assertThat(AdmissionStage.errorKind(reason).status()).as(reason.name()).isEqualTo(reason.httpStatus());
            }
        }
    }
}
