package io.cachegate.gateway.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Policy;
import io.cachegate.gateway.dispatch.AdmissionStage;
import io.cachegate.gateway.dispatch.Backends;
import io.cachegate.gateway.dispatch.ReplicaChoiceStage;
import io.cachegate.gateway.dispatch.ServePlanner;
import io.cachegate.gateway.exchange.Answers;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.exchange.RecordingTap;
import io.cachegate.gateway.exchange.Exchanges.Written;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.exchange.RecordingNext;
import io.cachegate.gateway.upstream.ScriptedUpstream;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.URI;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The relay against a scripted backend (no sockets): two replicas of the primary, retried once with a 10 ms
 * backoff, and a fallback backend serving a longer-context model.
 */
class RelayStageTest {

    private static final URI LONG = URI.create("http://long-a:8000");
    private static final String JSON = "application/json";
    private static final String CONTEXT_LENGTH_ERROR = "{\"error\":{\"message\":\"This model's maximum context length"
            + " is 8192 tokens\",\"type\":\"invalid_request_error\",\"param\":\"messages\","
            + "\"code\":\"context_length_exceeded\"}}";
    private static final Policy POLICY = Exchanges.policy("""
            server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1}
            backends:
              - name: main
                urls: ["http://replica-a:8000", "http://replica-b:8000"]
                models: ["llama-3.1-8b"]
                model_version: "llama@1"
                retries: {max_attempts: 2, backoff: 10ms}
                timeouts: {connect: 1s, first_byte: 5s, idle: 5s, total: 30s}
              - {name: long, urls: ["http://long-a:8000"], model_version: "long@1"}
            routes:
              - match: {model: "llama-3.1-8b"}
                backend: main
                fallback: long
                fallback_model: qwen2.5-0.5b
            """);

    private final Exchanges exchanges = new Exchanges(POLICY);
    private final ScriptedUpstream upstream = new ScriptedUpstream(exchanges.ticker());
    private final Backends backends = new Backends(POLICY, exchanges.metrics(), exchanges.ticker());
    private final ServePlanner planner = new ServePlanner(POLICY, backends);
    private final AdmissionStage admission = new AdmissionStage(planner);
    private final ReplicaChoiceStage replicaChoice = new ReplicaChoiceStage();
    private final RelayStage stage = new RelayStage(POLICY, upstream, planner, exchanges.metrics());
    private final RecordingNext next = new RecordingNext();
    private final RecordingTap tap = new RecordingTap();

    @AfterEach
    void close() {
        exchanges.close();
        upstream.close();
    }

    @Test
    void handle_answer_isRelayedWithTheGatewaysHeaders() {
        Exchange x = relayed("hello");

        upstream.call(0).answer(200, JSON, Answers.HELLO);

        Written written = Exchanges.written(x);
        assertThat(upstream.call(0).requestModel()).isEqualTo("llama-3.1-8b");
        assertThat(written.status()).isEqualTo(200);
        assertThat(written.header(GatewayHeaders.X_CACHE)).isEqualTo("BYPASS");
        assertThat(written.header(GatewayHeaders.X_CACHEGATE_MODEL)).isEqualTo("llama-3.1-8b");
        assertThat(written.header(GatewayHeaders.X_REQUEST_ID)).isEqualTo(x.requestId());
        assertThat(written.body()).isEqualTo(Answers.HELLO);
        assertThat(written.complete()).isTrue();
        assertThat(written.open()).isTrue();
        assertThat(tap.outline()).containsExactly("head 200", "content", "complete");
        assertThat(exchanges.finishedCount(x)).isEqualTo(1);
        assertThat(exchanges.requestsFinished("status", "200")).isEqualTo(1);
        assertThat(next.called()).as("the last stage").isFalse();
    }

    @Test
    void handle_answerWhoseBodyEndsInTheHeadsRead_leavesAsOneWholeAnswer() {
        Exchange x = relayed("hello");

        upstream.call(0).answer(200, JSON, Answers.HELLO);

        Written written = Exchanges.written(x);
        assertThat(written.messages()).as("head and body in one message: one write, one buffer").isEqualTo(1);
        assertThat(written.body()).isEqualTo(Answers.HELLO);
        assertThat(written.complete()).isTrue();
        assertThat(tap.outline()).containsExactly("head 200", "content", "complete");
    }

    @Test
    void handle_answerWhoseBodyComesInLaterReads_headLeavesAtTheEndOfItsRead() {
        Exchange x = relayed("hello");
        int length = Answers.HELLO.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;

        upstream.call(0).headWithLength(200, JSON, length);
        Written head = Exchanges.written(x);
        assertThat(head.status()).as("not held past its read").isEqualTo(200);
        assertThat(head.complete()).isFalse();
        upstream.call(0).piece(Answers.HELLO.substring(0, 5));
        upstream.call(0).last(Answers.HELLO.substring(5));

        Written rest = Exchanges.written(x);
        assertThat(head.body() + rest.body()).isEqualTo(Answers.HELLO);
        assertThat(rest.complete()).isTrue();
        assertThat(tap.outline()).containsExactly("head 200", "content", "complete");
    }

    @Test
    void handle_answerAndError_carryTheHeadersStagesSet() {
        Exchange x = exchanges.chat(Exchanges.chatBody("llama-3.1-8b", "hello"));
        x.responseHeader("x-ratelimit-limit-requests", "5");
        x.addTap(tap);
        admission.handle(x, planned -> replicaChoice.handle(planned, chosen -> stage.handle(chosen, next)));
        upstream.call(0).answer(200, JSON, Answers.HELLO);
        assertThat(Exchanges.written(x).header("x-ratelimit-limit-requests")).isEqualTo("5");

        Exchange failed = exchanges.chat(Exchanges.chatBody("llama-3.1-8b", "hello again"));
        failed.responseHeader("x-ratelimit-limit-requests", "4");
        admission.handle(failed, planned -> replicaChoice.handle(planned, chosen -> stage.handle(chosen, next)));
        upstream.call(1).dropConnection(); // before any byte of an answer: the gateway's own error
        afterBackoff(failed);

        Written error = Exchanges.written(failed);
        assertThat(error.status()).isEqualTo(502);
        assertThat(error.header("x-ratelimit-limit-requests")).isEqualTo("4");
    }

    @Test
    void handle_5xxHeadBeforeTheFirstByte_isRetriedOnTheOtherReplica() {
        Exchange x = relayed("hello");
        ScriptedUpstream.Call first = upstream.call(0);

        first.head(503, JSON);
        assertThat(upstream.calls()).as("waits for its backoff").hasSize(1);
        afterBackoff(x);

        assertThat(upstream.calls()).hasSize(2);
        ScriptedUpstream.Call second = upstream.call(1);
        assertThat(second.url()).isNotEqualTo(first.url());
        assertThat(first.connectionOpen()).as("the 503's connection is given up").isFalse();
        assertThat(x.lease().replica()).isEqualTo(second.url());
        second.answer(200, JSON, Answers.HELLO);
        Written written = Exchanges.written(x);
        assertThat(written.status()).isEqualTo(200);
        assertThat(written.messages()).as("the 503 never reached the client: the one whole answer").isEqualTo(1);
        assertThat(written.body()).isEqualTo(Answers.HELLO);
        assertThat(tap.outline()).containsExactly("head 200", "content", "complete");
        assertThat(exchanges.count("cachegate.upstream.retries", "backend", "main")).isEqualTo(1);
        assertThat(exchanges.count("cachegate.upstream.failures", "kind", "status_5xx")).isEqualTo(1);
    }

    @Test
    void handle_failureAfterTheFirstByte_closesTheClientConnection_withoutRetry() {
        Exchange x = relayed("hello");
        ScriptedUpstream.Call call = upstream.call(0);
        call.head(200, "text/event-stream");
        call.piece("data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n");
        Written started = Exchanges.written(x);
        assertThat(started.status()).isEqualTo(200);
        assertThat(started.body()).contains("Hel");

        call.dropConnection();
        afterBackoff(x);

        Written after = Exchanges.written(x);
        assertThat(after.complete()).as("no last piece: a truncated answer must not look complete").isFalse();
        assertThat(after.open()).isFalse();
        assertThat(upstream.calls()).hasSize(1);
        assertThat(tap.outline()).containsExactly("head 200", "content", "abort");
        assertThat(x.isDone()).isTrue();
        assertThat(exchanges.count("cachegate.upstream.retries")).isZero();
        assertThat(exchanges.count("cachegate.upstream.failures", "kind", "closed_mid_response")).isEqualTo(1);
    }

    @Test
    void handle_contextLengthExceeded_movesTheRequestToTheFallbackModel() {
        Exchange x = relayed("summarise this long document");
        ScriptedUpstream.Call primary = upstream.call(0);
        assertThat(primary.requestModel()).isEqualTo("llama-3.1-8b");

        primary.answer(400, JSON, CONTEXT_LENGTH_ERROR);

        assertThat(upstream.calls()).hasSize(2);
        ScriptedUpstream.Call fallback = upstream.call(1);
        assertThat(fallback.url()).isEqualTo(LONG);
        assertThat(fallback.requestModel()).isEqualTo("qwen2.5-0.5b");
        fallback.answer(200, JSON, Answers.chatCompletion("A summary"));
        Written written = Exchanges.written(x);
        assertThat(written.status()).isEqualTo(200);
        assertThat(written.messages()).as("nothing of the 400 reached the client: the one whole answer").isEqualTo(1);
        assertThat(written.header(GatewayHeaders.X_CACHEGATE_MODEL)).isEqualTo("qwen2.5-0.5b");
        assertThat(written.body()).contains("A summary");
        assertThat(tap.outline()).containsExactly("fallback long/qwen2.5-0.5b", "head 200", "content", "complete");
        assertThat(exchanges.count("cachegate.fallbacks", "reason", "context_length")).isEqualTo(1);
    }

    @Test
    void handle_other400_isRelayedAsItCame() {
        Exchange x = relayed("hello");
        String error = "{\"error\":{\"message\":\"temperature too high\",\"type\":\"invalid_request_error\","
                + "\"param\":\"temperature\",\"code\":null}}";

        upstream.call(0).answer(400, JSON, error);

        Written written = Exchanges.written(x);
        assertThat(upstream.calls()).hasSize(1);
        assertThat(written.status()).isEqualTo(400);
        assertThat(written.body()).isEqualTo(error);
        assertThat(written.complete()).isTrue();
        assertThat(exchanges.count("cachegate.fallbacks")).isZero();
    }

    @Test
    void cancel_clientLeavesBeforeTheHead_cancelsTheUpstreamCall() {
        Exchange x = relayed("hello");

        x.cancel();

        assertThat(upstream.call(0).connectionOpen()).as("the backend stops generating").isFalse();
        assertThat(tap.outline()).containsExactly("abort");
        assertThat(exchanges.requestsFinished("status", "499")).isEqualTo(1);
    }

    /** A chat request taken through admission and replica choice to the relay, with {@link #tap} on its answer. */
    private Exchange relayed(String message) {
        Exchange x = exchanges.chat(Exchanges.chatBody("llama-3.1-8b", message));
        x.addTap(tap);
        admission.handle(x, planned -> replicaChoice.handle(planned, chosen -> stage.handle(chosen, next)));
        assertThat(upstream.calls()).as("one call started").hasSize(1);
        return x;
    }

    /** Moves the client's event loop past any retry backoff (10 ms, jittered) and runs what was due. */
    private static void afterBackoff(Exchange x) {
        EmbeddedChannel client = Exchanges.channel(x);
        client.advanceTimeBy(1, TimeUnit.SECONDS);
        client.runScheduledPendingTasks();
    }
}
