package io.cachegate.gateway.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Policy;
import io.cachegate.gateway.dispatch.AdmissionStage;
import io.cachegate.gateway.dispatch.Backends;
import io.cachegate.gateway.dispatch.ReplicaChoiceStage;
import io.cachegate.gateway.dispatch.ServePlan;
import io.cachegate.gateway.dispatch.ServePlanner;
import io.cachegate.gateway.exchange.Answers;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.exchange.Exchanges.Written;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.exchange.RecordingNext;
import io.cachegate.gateway.exchange.ResponseTap;
import io.cachegate.gateway.upstream.ScriptedUpstream;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpResponse;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A route's fallback chain through admission, replica choice and the relay, against a scripted backend: the
 * primary (two replicas), then {@code small} with the request's model, then {@code tiny} with a model of its own.
 * Each hop is tried at most once, in order; when the chain is spent the client gets the last hop's error.
 */
class FallbackChainRelayTest {

    private static final URI MAIN_A = URI.create("http://main-a:8000");
    private static final URI MAIN_B = URI.create("http://main-b:8000");
    private static final URI SMALL = URI.create("http://small-a:8000");
    private static final URI TINY = URI.create("http://tiny-a:8000");
    private static final String JSON = "application/json";
    private static final String CONTEXT_LENGTH_ERROR = "{\"error\":{\"message\":\"This model's maximum context length"
            + " is %d tokens\",\"type\":\"invalid_request_error\",\"param\":\"messages\","
            + "\"code\":\"context_length_exceeded\"}}";
    private static final Policy POLICY = Exchanges.policy("""
            server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1}
            backends:
              - name: main
                urls: ["http://main-a:8000", "http://main-b:8000"]
                models: ["llama-3.1-8b"]
                model_version: "llama@1"
                retries: {max_attempts: 2, backoff: 10ms}
                health: {failures_to_eject: 1, eject_for: 30s}
              - {name: small, urls: ["http://small-a:8000"], model_version: "small@1",
                 health: {failures_to_eject: 1, eject_for: 30s}}
              - {name: tiny, urls: ["http://tiny-a:8000"], model_version: "tiny@1"}
            routes:
              - match: {model: "llama-3.1-8b"}
                backend: main
                fallbacks: [small, {backend: tiny, model: qwen2.5-0.5b}]
            """);

    private final Exchanges exchanges = new Exchanges(POLICY);
    private final ScriptedUpstream upstream = new ScriptedUpstream(exchanges.ticker());
    private final Backends backends = new Backends(POLICY, exchanges.metrics(), exchanges.ticker());
    private final ServePlanner planner = new ServePlanner(POLICY, backends);
    private final AdmissionStage admission = new AdmissionStage(planner);
    private final ReplicaChoiceStage replicaChoice = new ReplicaChoiceStage();
    private final RelayStage stage = new RelayStage(POLICY, upstream, planner, exchanges.metrics());
    private final RecordingNext next = new RecordingNext();
    private final List<String> fallbacks = new ArrayList<>();

    @AfterEach
    void close() {
        exchanges.close();
        upstream.close();
    }

    @Test
    void contextLength_onEveryHopButTheLast_walksTheChainInOrder() {
        Exchange x = relayed("summarise this long document");

        upstream.call(0).answer(400, JSON, CONTEXT_LENGTH_ERROR.formatted(8192));
        upstream.call(1).answer(400, JSON, CONTEXT_LENGTH_ERROR.formatted(16384));
        upstream.call(2).answer(200, JSON, Answers.chatCompletion("A summary"));

        assertThat(backends(upstream.calls())).containsExactly("main", "small", "tiny");
        assertThat(upstream.calls()).extracting(ScriptedUpstream.Call::requestModel)
                .containsExactly("llama-3.1-8b", "llama-3.1-8b", "qwen2.5-0.5b");
        Written written = Exchanges.written(x);
        assertThat(written.status()).isEqualTo(200);
        assertThat(written.messages()).as("nothing of either 400 reached the client: the one whole answer").isEqualTo(1);
        assertThat(written.header(GatewayHeaders.X_CACHEGATE_MODEL)).isEqualTo("qwen2.5-0.5b");
        assertThat(fallbacks).as("the cache files the answer under each hop's model in turn")
                .containsExactly("small/llama-3.1-8b", "tiny/qwen2.5-0.5b");
        assertThat(x.record().fallbackHop()).isEqualTo(2);
        assertThat(x.record().backend()).isEqualTo("tiny");
        assertThat(exchanges.count("cachegate.fallbacks", "reason", "context_length")).isEqualTo(2);
    }

    @Test
    void contextLength_onEveryHop_answersTheLastHopsError() {
        Exchange x = relayed("an even longer document");
        String last = CONTEXT_LENGTH_ERROR.formatted(32768);

        upstream.call(0).answer(400, JSON, CONTEXT_LENGTH_ERROR.formatted(8192));
        upstream.call(1).answer(400, JSON, CONTEXT_LENGTH_ERROR.formatted(16384));
        upstream.call(2).answer(400, JSON, last);

        assertThat(upstream.calls()).as("each hop once").hasSize(3);
        Written written = Exchanges.written(x);
        assertThat(written.status()).isEqualTo(400);
        assertThat(written.body()).isEqualTo(last);
        assertThat(written.complete()).isTrue();
        assertThat(written.header(GatewayHeaders.X_CACHEGATE_MODEL)).isEqualTo("qwen2.5-0.5b");
        assertThat(x.isDone()).isTrue();
    }

    @Test
    void primaryRefusesEveryConnection_theNextHopAnswers() {
        upstream.refuse(MAIN_A);
        upstream.refuse(MAIN_B);
        Exchange x = relayed("hello");
        afterBackoff(x); // the other replica, after the retry's backoff

        assertThat(backends(upstream.calls())).as("both replicas, then the next hop")
                .containsExactly("main", "main", "small");
        upstream.call(2).answer(200, JSON, Answers.HELLO);
        Written written = Exchanges.written(x);
        assertThat(written.status()).isEqualTo(200);
        assertThat(written.header(GatewayHeaders.X_CACHEGATE_MODEL)).isEqualTo("llama-3.1-8b");
        assertThat(fallbacks).containsExactly("small/llama-3.1-8b");
        assertThat(exchanges.count("cachegate.fallbacks", "reason", "primary_down")).isEqualTo(1);
    }

    @Test
    void everyHopRefusesTheConnection_answers502_neverHangs() {
        upstream.refuse(MAIN_A);
        upstream.refuse(MAIN_B);
        upstream.refuse(SMALL);
        upstream.refuse(TINY);
        Exchange x = relayed("hello");
        afterBackoff(x);

        assertThat(backends(upstream.calls())).containsExactly("main", "main", "small", "tiny");
        Written written = Exchanges.written(x);
        assertThat(written.status()).isEqualTo(502);
        assertThat(written.body()).contains("Backend 'tiny' is unreachable");
        assertThat(x.isDone()).isTrue();
    }

    @Test
    void primaryAndFirstHopDownByProbe_theSecondHopIsPlannedUpFront() {
        backends.get("main").replicas().recordProbe(MAIN_A, false);
        backends.get("main").replicas().recordProbe(MAIN_B, false);
        backends.get("small").replicas().recordProbe(SMALL, false);

        Exchange x = relayed("hello");

        assertThat(upstream.call(0).url()).isEqualTo(TINY);
        assertThat(upstream.call(0).requestModel()).isEqualTo("qwen2.5-0.5b");
        ServePlan plan = x.get(ServePlan.KEY);
        assertThat(plan.target().hop()).isEqualTo(2);
        assertThat(fallbacks).containsExactly("tiny/qwen2.5-0.5b");
    }

    @Test
    void contextLength_afterAPrimaryDown_skipsTheHopsAlreadyPassed() {
        backends.get("main").replicas().recordProbe(MAIN_A, false);
        backends.get("main").replicas().recordProbe(MAIN_B, false);
        Exchange x = relayed("a long document");

        upstream.call(0).answer(400, JSON, CONTEXT_LENGTH_ERROR.formatted(16384));

        assertThat(upstream.calls()).extracting(ScriptedUpstream.Call::url).containsExactly(SMALL, TINY);
        upstream.call(1).answer(200, JSON, Answers.HELLO);
        assertThat(Exchanges.written(x).status()).isEqualTo(200);
    }

    /** A chat request taken through admission and replica choice to the relay, its fallbacks recorded. */
    private Exchange relayed(String message) {
        Exchange x = exchanges.chat(Exchanges.chatBody("llama-3.1-8b", message));
        x.addTap(new FallbackTap());
        admission.handle(x, planned -> replicaChoice.handle(planned, chosen -> stage.handle(chosen, next)));
        assertThat(upstream.calls()).as("one call started").isNotEmpty();
        return x;
    }

    /** The backend of each call, by its replica's host ({@code main-a} is main's). */
    private static List<String> backends(List<ScriptedUpstream.Call> calls) {
        return calls.stream().map(c -> c.url().getHost().replaceFirst("-[ab]$", "")).toList();
    }

    /** Records the hops the answer's taps are told about. */
    private final class FallbackTap implements ResponseTap {
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

        @Override
        public void onFallback(String backend, String model) {
            fallbacks.add(backend + "/" + model);
        }
    }

    /** Moves the client's event loop past any retry backoff (10 ms, jittered) and runs what was due. */
    private static void afterBackoff(Exchange x) {
        EmbeddedChannel client = Exchanges.channel(x);
        client.advanceTimeBy(1, TimeUnit.SECONDS);
        client.runScheduledPendingTasks();
    }
}
