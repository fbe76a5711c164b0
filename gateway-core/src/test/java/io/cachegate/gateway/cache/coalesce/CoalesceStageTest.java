package io.cachegate.gateway.cache.coalesce;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Policy;
import io.cachegate.gateway.cache.CacheKeyStage;
import io.cachegate.gateway.cache.CacheKeys;
import io.cachegate.gateway.cache.CacheableRequest;
import io.cachegate.gateway.cache.ModelVersions;
import io.cachegate.gateway.exchange.Answer;
import io.cachegate.gateway.exchange.Answers;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.exchange.Exchanges.Written;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.exchange.RecordingNext;
import io.cachegate.gateway.exchange.RecordingTap;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CoalesceStageTest {

    private static final Policy POLICY = Exchanges.policy("""
            server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1}
            backends:
              - name: main
                urls: ["http://replica-a:8000"]
                model_version: "llama@1"
                timeouts: {connect: 1s, first_byte: 2s, idle: 2s, total: 30s}
            cache:
              exact: {store: memory, ttl: 1h}
            """);
    private static final String HELLO = Exchanges.chatBody("llama-3.1-8b", "hello");

    private final Exchanges exchanges = new Exchanges(POLICY);
    private final Coalescer coalescer = new Coalescer(1 << 20);
    private final CacheKeyStage keys = new CacheKeyStage(POLICY, new CacheKeys(POLICY, new ModelVersions()));
    private final CoalesceStage stage = new CoalesceStage(coalescer);
    private final RecordingNext next = new RecordingNext();

    /** Ends lingering answers for the coalescer that keeps them ({@link #lingering}). */
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final Coalescer lingering = new Coalescer(1 << 20, null, exchanges.ticker(), timer);
    private final CoalesceStage withLinger = new CoalesceStage(lingering);

    @AfterEach
    void close() {
        exchanges.close();
        timer.shutdownNow();
    }

    @Test
    void handle_firstMiss_leads_andItsAnswerIsShared() {
        Exchange leader = keyed(HELLO);

        stage.handle(leader, next);

        assertThat(next.count(leader)).isEqualTo(1);
        assertThat(leader.xCache()).isEqualTo(GatewayHeaders.MISS);
        SharedAnswer shared = leader.get(CoalesceStage.LEADING);
        assertThat(shared).isNotNull();
        assertThat(coalescer.inFlight()).isEqualTo(1);
        assertThat(exchanges.count("cachegate.cache.misses")).isEqualTo(1);
        leader.taps().onHead(jsonHead(Answers.HELLO));
        assertThat(shared.state()).as("the shared answer is a tap on the leader's answer")
                .isEqualTo(SharedAnswer.State.STREAMING);
    }

    @Test
    void handle_identicalMissInFlight_follows_andGetsTheLeadersBytes() {
        Exchange leader = keyed(HELLO);
        stage.handle(leader, next);
        Exchange follower = keyed(HELLO);

        stage.handle(follower, next);
        Exchanges.runPending(follower);
        assertThat(Exchanges.written(follower).nothing()).as("no head from the leader yet").isTrue();
        relayed(leader, Answers.HELLO);
        Exchanges.runPending(follower);

        Written written = Exchanges.written(follower);
        assertThat(next.exchanges()).containsExactly(leader);
        assertThat(written.status()).isEqualTo(200);
        assertThat(written.header(GatewayHeaders.X_CACHE)).isEqualTo("MISS");
        assertThat(written.header(GatewayHeaders.X_CACHE_COALESCED)).isEqualTo("1");
        assertThat(written.header(GatewayHeaders.X_REQUEST_ID)).isEqualTo(follower.requestId());
        assertThat(written.body()).isEqualTo(Answers.HELLO);
        assertThat(written.complete()).isTrue();
        assertThat(exchanges.finishedCount(follower)).isEqualTo(1);
        assertThat(exchanges.count("cachegate.cache.coalesced")).isEqualTo(1);
    }

    @Test
    void follower_tapsSeeTheLeadersAnswer_andItCarriesTheHeadersStagesSetOnTheFollower() {
        Exchange leader = keyed(HELLO);
        leader.responseHeader("x-ratelimit-remaining-requests", "9");
        stage.handle(leader, next);
        Exchange follower = keyed(HELLO);
        follower.responseHeader("x-ratelimit-remaining-requests", "8");
        RecordingTap tap = new RecordingTap();
        follower.addTap(tap);

        stage.handle(follower, next);
        relayed(leader, Answers.HELLO);
        Exchanges.runPending(follower);

        Written written = Exchanges.written(follower);
        assertThat(written.header("x-ratelimit-remaining-requests")).as("the follower's own").isEqualTo("8");
        assertThat(written.header(GatewayHeaders.X_CACHE_COALESCED)).isEqualTo("1");
        assertThat(tap.outline()).containsExactly("head 200", "content", "complete");
        assertThat(tap.body()).isEqualTo(written.body()).isEqualTo(Answers.HELLO);
        assertThat(follower.answer().source()).isEqualTo(Answer.Source.COALESCED);
    }

    @Test
    void handle_flightFoundByTheExactStage_isFollowedEvenAfterItSettled() {
        Exchange leader = keyed(HELLO);
        stage.handle(leader, next);
        SharedAnswer flight = leader.get(CoalesceStage.LEADING);
        Exchange follower = keyed(HELLO);
        follower.set(CoalesceStage.FOLLOW, flight); // what the exact-cache stage leaves when it skips its lookup
        relayed(leader, Answers.HELLO);
        flight.settle(SharedAnswer.Outcome.STORED); // stored: no longer joinable by key

        stage.handle(follower, next);
        Exchanges.runPending(follower);

        assertThat(coalescer.inFlight()).isZero();
        assertThat(next.exchanges()).as("no second call for the same answer").containsExactly(leader);
        assertThat(Exchanges.written(follower).body()).isEqualTo(Answers.HELLO);
    }

    @Test
    void handle_followerJoinsAfterTheHead_getsTheAnswerFromItsStart() {
        Exchange leader = keyed(HELLO);
        stage.handle(leader, next);
        leader.taps().onHead(jsonHead(Answers.HELLO));
        content(leader, Answers.HELLO.substring(0, 10));
        Exchange follower = keyed(HELLO);

        stage.handle(follower, next);
        content(leader, Answers.HELLO.substring(10));
        leader.taps().onComplete();
        Exchanges.runPending(follower);

        assertThat(Exchanges.written(follower).body()).isEqualTo(Answers.HELLO);
    }

    @Test
    void handle_leaderFailsBeforeItsHead_followerLeadsItsOwnCall() {
        Exchange leader = keyed(HELLO);
        stage.handle(leader, next);
        Exchange follower = keyed(HELLO);
        stage.handle(follower, next);

        leader.taps().onAbort();
        leader.finish(502);
        Exchanges.runPending(follower);

        assertThat(next.exchanges()).containsExactly(leader, follower);
        SharedAnswer own = follower.get(CoalesceStage.LEADING);
        assertThat(own).as("it re-joined and leads").isNotNull().isNotSameAs(leader.get(CoalesceStage.LEADING));
        assertThat(coalescer.inFlight()).isEqualTo(1);
        assertThat(Exchanges.written(follower).nothing()).isTrue();
        assertThat(follower.isDone()).isFalse();
    }

    @Test
    void handle_leadersHeadLate_followerMakesItsOwnCall() {
        Exchange leader = keyed(HELLO);
        stage.handle(leader, next);
        Exchange follower = keyed(HELLO);
        stage.handle(follower, next);

        Exchanges.channel(follower).advanceTimeBy(2001, TimeUnit.MILLISECONDS); // first_byte: 2s
        Exchanges.channel(follower).runScheduledPendingTasks();

        assertThat(next.exchanges()).containsExactly(leader, follower);
        assertThat(follower.get(CoalesceStage.LEADING)).as("the leader is still in flight: no second flight")
                .isNull();
        assertThat(Exchanges.written(follower).nothing()).isTrue();
    }

    @Test
    void handle_followerLeaves_leaderGoesOn() {
        Exchange leader = keyed(HELLO);
        stage.handle(leader, next);
        Exchange follower = keyed(HELLO);
        stage.handle(follower, next);

        assertThat(leader.taps().needsRest()).as("a follower waits on the answer").isTrue();

        follower.cancel();
        relayed(leader, Answers.HELLO);
        Exchanges.runPending(follower);

        assertThat(exchanges.requestsFinished("status", "499")).isEqualTo(1);
        assertThat(Exchanges.written(follower).nothing()).isTrue();
        assertThat(leader.taps().needsRest()).as("nobody waits any more").isFalse();
        assertThat(leader.<SharedAnswer>get(CoalesceStage.LEADING).state()).isEqualTo(SharedAnswer.State.COMPLETE);
        assertThat(exchanges.requestsFinished("status", "200")).as("the leader").isEqualTo(1);
    }

    @Test
    void handle_sameKeyAskedAsAStream_leadsItsOwnFlight() {
        Exchange json = keyed(HELLO);
        Exchange streamed = keyed("{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"max_tokens\":16,\"stream\":true,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}");
        assertThat(streamed.get(CacheableRequest.KEY).key()).isEqualTo(json.get(CacheableRequest.KEY).key());

        stage.handle(json, next);
        stage.handle(streamed, next);

        assertThat(next.exchanges()).as("SSE bytes cannot answer a JSON request").containsExactly(json, streamed);
        assertThat(coalescer.inFlight()).isEqualTo(2);
    }

    @Test
    void completedAnswerWhoseWriteFailed_lingers_andALaterIdenticalRequestIsServedFromIt() throws Exception {
        Exchange leader = keyed(HELLO);
        withLinger.handle(leader, next);
        SharedAnswer flight = leader.get(CoalesceStage.LEADING);
        relayed(leader, Answers.HELLO);
        flight.settle(SharedAnswer.Outcome.WRITE_FAILED); // the store is down: the entry is not readable

        Exchange late = keyed(HELLO);
        withLinger.handle(late, next);
        Exchanges.runPending(late);
        Exchange fresh = keyed(HELLO, "Cache-Control", "no-cache");
        withLinger.handle(fresh, next);

        assertThat(next.exchanges()).as("the late arrival makes no second call; no-cache asks for a fresh one")
                .containsExactly(leader, fresh);
        Written written = Exchanges.written(late);
        assertThat(written.body()).isEqualTo(Answers.HELLO);
        assertThat(written.header(GatewayHeaders.X_CACHE_COALESCED)).isEqualTo("1");
        assertThat(fresh.<SharedAnswer>get(CoalesceStage.LEADING)).as("it leads a new flight").isNotNull();
        long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (lingering.inFlight() > 1 && System.nanoTime() < until) {
            Thread.sleep(50);
        }
        assertThat(lingering.inFlight()).as("the lingering answer ended after %s", Coalescer.LINGER).isEqualTo(1);
    }

    @Test
    void completedAnswerNotStorable_doesNotLinger_aStoredOneLingersForLateJoinersOnly() {
        Exchange leader = keyed(HELLO);
        withLinger.handle(leader, next);
        relayed(leader, Answers.HELLO);
        leader.<SharedAnswer>get(CoalesceStage.LEADING).settle(SharedAnswer.Outcome.NOT_STORED);
        assertThat(lingering.inFlight()).as("not storable: no longer joinable").isZero();

        Exchange second = keyed(HELLO);
        withLinger.handle(second, next);
        relayed(second, Answers.HELLO);
        Exchange lateJoiner = keyed(HELLO); // arrived before the write landed: its lookup missed
        exchanges.ticker().advance(Duration.ofMillis(5));
        SharedAnswer stored = second.get(CoalesceStage.LEADING);
        stored.settle(SharedAnswer.Outcome.STORED);
        exchanges.ticker().advance(Duration.ofMillis(5));
        assertThat(lingering.inFlight()).as("stored: joinable by a request whose lookup ran before").isEqualTo(1);
        Exchange after = keyed(HELLO);
        assertThat(CoalesceStage.servable(after, after.get(CacheableRequest.KEY), stored))
                .as("a request that arrives after the write looks the entry up instead (a purge holds for it)")
                .isFalse();

        withLinger.handle(lateJoiner, next);
        assertThat(next.exchanges()).containsExactly(leader, second);

        lingering.purged();
        assertThat(lingering.inFlight()).as("a purge ends every lingering answer").isZero();
    }

    @Test
    void handle_bypass_proceedsWithoutAMissOrAFlight() {
        Exchange x = exchanges.chat(HELLO); // not keyed

        stage.handle(x, next);

        assertThat(next.count(x)).isEqualTo(1);
        assertThat(x.xCache()).isEqualTo(GatewayHeaders.BYPASS);
        assertThat(coalescer.inFlight()).isZero();
        assertThat(exchanges.count("cachegate.cache.misses")).isZero();
    }

    private Exchange keyed(String body, String... headers) {
        Exchange x = exchanges.chat(body, headers);
        keys.handle(x, new RecordingNext());
        assertThat(x.get(CacheableRequest.KEY)).as("cacheable").isNotNull();
        return x;
    }

    /** The leader's answer as the relay feeds its taps: head, body, complete. */
    private static void relayed(Exchange leader, String body) {
        leader.taps().onHead(jsonHead(body));
        content(leader, body);
        leader.taps().onComplete();
        leader.finish(200);
    }

    private static HttpResponse jsonHead(String body) {
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        head.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.getBytes(StandardCharsets.UTF_8).length);
        return head;
    }

    private static void content(Exchange leader, String piece) {
        ByteBuf buf = Exchanges.buffer(piece);
        try {
            leader.taps().onContent(buf);
        } finally {
            buf.release();
        }
    }
}
