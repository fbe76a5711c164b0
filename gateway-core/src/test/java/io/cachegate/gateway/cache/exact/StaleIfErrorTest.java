package io.cachegate.gateway.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Policy;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.cache.CacheKeyStage;
import io.cachegate.gateway.cache.CacheKeys;
import io.cachegate.gateway.cache.ModelVersions;
import io.cachegate.gateway.cache.ScriptedStore;
import io.cachegate.gateway.cache.coalesce.CoalesceStage;
import io.cachegate.gateway.cache.coalesce.Coalescer;
import io.cachegate.gateway.exchange.Answers;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.exchange.Exchanges.Written;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.exchange.RecordingNext;
import io.cachegate.gateway.exchange.RecordingTap;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The exact cache stage with {@code stale_if_error}: an entry past its TTL within the window does not answer while
 * the backend may, and stands in for an error the backend's failure or overload causes (and for no other).
 */
class StaleIfErrorTest {

    /** ttl 1h, stale_if_error 10m; the route {@code small-*} turns it off. */
    private static final Policy POLICY = Exchanges.policy("""
            server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1}
            backends:
              - {name: main, urls: ["http://replica-a:8000"], model_version: "llama@1"}
            cache:
              exact: {store: memory, ttl: 1h, stale_if_error: 10m}
            routes:
              - match: {model: "small-*"}
                cache: {stale_if_error: 0s}
              - match: {model: "*"}
            """);
    private static final String HELLO = Exchanges.chatBody("llama-3.1-8b", "hello");
    private static final Duration TTL = Duration.ofHours(1);

    private final Exchanges exchanges = new Exchanges(POLICY);
    private final ScriptedStore store = new ScriptedStore(exchanges.ticker());
    private final CacheKeyStage keys = new CacheKeyStage(POLICY, new CacheKeys(POLICY, new ModelVersions()));
    private final ExactCacheStage stage = new ExactCacheStage(store, new Coalescer(1 << 20));
    private final RecordingNext next = new RecordingNext();
    private final StoredEntries entries = new StoredEntries(exchanges, keys, store, TTL);

    @AfterEach
    void close() {
        exchanges.close();
        store.close();
    }

    @Test
    void handle_entryPastTtl_goesUpstreamAsAMiss() {
        Exchange x = entries.storedThenLater(HELLO, TTL.plusMinutes(3));

        stage.handle(x, next);

        assertThat(next.count(x)).as("the backend is asked").isEqualTo(1);
        assertThat(x.isDone()).isFalse();
        assertThat(x.record().exactLookup().tag()).isEqualTo("miss");
    }

    @Test
    void fail_backendUnreachable_entryInWindowAnswersStale() {
        Exchange x = entries.storedThenLater(HELLO, TTL.plusMinutes(3));
        RecordingTap capture = new RecordingTap();
        x.addTap(capture);
        stage.handle(x, next);

        x.fail(ErrorKind.UPSTREAM_UNREACHABLE, "backend down", null);

        Written written = Exchanges.written(x);
        assertThat(written.status()).isEqualTo(200);
        assertThat(written.header(GatewayHeaders.X_CACHE)).isEqualTo("STALE");
        assertThat(written.header(GatewayHeaders.X_CACHE_LAYER)).isEqualTo("exact");
        assertThat(written.header(HttpHeaderNames.AGE)).isEqualTo("3780"); // 1h 3m
        assertThat(written.header(GatewayHeaders.X_CACHE_STALE))
                .isEqualTo("if-error; reason=backend_unavailable; past-ttl=180");
        assertThat(written.body()).isEqualTo(Answers.HELLO);
        assertThat(capture.outline()).as("the capture never stores a stale answer").containsExactly("abort");
        assertThat(exchanges.count("cachegate.cache.lookups", "layer", "exact", "outcome", "stale")).isEqualTo(1);
        assertThat(exchanges.count("cachegate.cache.lookups", "layer", "exact", "outcome", "miss")).isZero();
        assertThat(exchanges.count("cachegate.cache.stale", "reason", "backend_unavailable")).isEqualTo(1);
        assertThat(exchanges.count("cachegate.cache.calls.avoided")).as("not a hit").isZero();
        assertThat(exchanges.count("cachegate.cache.misses")).isZero();
    }

    @Test
    void retryLater_overloaded_answersStale_withItsCause() {
        Exchange x = entries.storedThenLater(HELLO, TTL.plusSeconds(1));
        stage.handle(x, next);

        x.retryLater(ErrorKind.QUEUE_FULL, "queue full", 3);

        Written written = Exchanges.written(x);
        assertThat(written.status()).isEqualTo(200);
        assertThat(written.header(GatewayHeaders.X_CACHE_STALE)).isEqualTo("if-error; reason=overloaded; past-ttl=1");
        assertThat(written.header(HttpHeaderNames.RETRY_AFTER)).isNull();
    }

    @Test
    void fail_errorAboutTheRequest_isAnsweredAsItIs() {
        Exchange x = entries.storedThenLater(HELLO, TTL.plusMinutes(3));
        stage.handle(x, next);

        x.fail(ErrorKind.INVALID_REQUEST, "bad", null);

        assertThat(Exchanges.written(x).status()).isEqualTo(400);
        assertThat(exchanges.count("cachegate.cache.stale")).isZero();
    }

    @Test
    void fail_entryPastItsWindow_theErrorIsAnswered() {
        Exchange x = entries.storedThenLater(HELLO, TTL.plusMinutes(10));
        stage.handle(x, next);

        x.fail(ErrorKind.UPSTREAM_UNREACHABLE, "backend down", null);

        assertThat(Exchanges.written(x).status()).isEqualTo(502);
    }

    @Test
    void fail_windowEndsWhileTheCallFails_theErrorIsAnswered() {
        // Judged again when the failure comes: a first-byte timeout may outlast the window.
        Exchange x = entries.storedThenLater(HELLO, TTL.plusMinutes(9));
        stage.handle(x, next);
        exchanges.ticker().advance(Duration.ofMinutes(2));

        x.fail(ErrorKind.UPSTREAM_TIMEOUT, "timeout", null);

        assertThat(Exchanges.written(x).status()).isEqualTo(504);
    }

    @Test
    void fail_routeWithoutAWindow_theErrorIsAnswered() {
        Exchange x = entries.storedThenLater(Exchanges.chatBody("small-model", "hello"), TTL.plusSeconds(1));
        stage.handle(x, next);

        x.fail(ErrorKind.UPSTREAM_UNREACHABLE, "backend down", null);

        assertThat(Exchanges.written(x).status()).isEqualTo(502);
    }

    @Test
    void fail_clientBoundedTheAgeWithMaxAge_theErrorIsAnswered() {
        Exchange x = entries.storedThenLater(HELLO, TTL.plusSeconds(1), "Cache-Control", "max-age=7200");
        stage.handle(x, next);

        x.fail(ErrorKind.UPSTREAM_UNREACHABLE, "backend down", null);

        assertThat(Exchanges.written(x).status()).isEqualTo(502);
    }

    @Test
    void fail_clientStaleIfError_narrowsTheWindow() {
        Exchange narrowed = entries.storedThenLater(HELLO, TTL.plusMinutes(3), "Cache-Control", "stale-if-error=60");
        stage.handle(narrowed, next);
        narrowed.fail(ErrorKind.UPSTREAM_UNREACHABLE, "backend down", null);
        assertThat(Exchanges.written(narrowed).status()).as("3m past the TTL, the client takes 1m").isEqualTo(502);

        Exchange within = entries.keyed(HELLO, "Cache-Control", "stale-if-error=300");
        stage.handle(within, next);
        within.fail(ErrorKind.UPSTREAM_UNREACHABLE, "backend down", null);
        assertThat(Exchanges.written(within).header(GatewayHeaders.X_CACHE)).isEqualTo("STALE");
    }

    @Test
    void fail_clientAsksForMoreThanThePolicy_getsThePolicysWindow() {
        // max-stale=1 day, the policy's 10m: 11m past the TTL is too far.
        Exchange x = entries.storedThenLater(HELLO, TTL.plusMinutes(11), "Cache-Control", "max-stale=86400");
        stage.handle(x, next);
        x.fail(ErrorKind.UPSTREAM_UNREACHABLE, "backend down", null);
        assertThat(Exchanges.written(x).status()).isEqualTo(502);
    }

    @Test
    void fail_maxAgeWithMaxStale_staleWithinTheClientsBound() {
        Exchange x = entries.storedThenLater(HELLO, TTL.plusSeconds(30), "Cache-Control", "max-age=60, max-stale=120");
        stage.handle(x, next);
        x.fail(ErrorKind.UPSTREAM_TIMEOUT, "timeout", null);
        Written written = Exchanges.written(x);
        assertThat(written.header(GatewayHeaders.X_CACHE)).isEqualTo("STALE");
        assertThat(written.header(GatewayHeaders.X_CACHE_STALE))
                .isEqualTo("if-error; reason=backend_timeout; past-ttl=30");
    }

    @Test
    void handle_hitThenStaleOnOneEntry_eachSaysWhatItIs() {
        // The shared header block of a hit is keyed by X-Cache too: a stale answer never borrows the HIT block.
        Exchange hit = entries.keyed(HELLO);
        entries.store(hit);
        stage.handle(hit, next);
        assertThat(Exchanges.written(hit).header(GatewayHeaders.X_CACHE)).isEqualTo("HIT");

        exchanges.ticker().advance(TTL.plusSeconds(30));
        Exchange stale = entries.keyed(HELLO);
        stage.handle(stale, next);
        stale.fail(ErrorKind.UPSTREAM_BAD_RESPONSE, "garbage", null);

        Written written = Exchanges.written(stale);
        assertThat(written.header(GatewayHeaders.X_CACHE)).isEqualTo("STALE");
        assertThat(written.header(GatewayHeaders.X_CACHE_STALE)).isEqualTo("if-error; reason=backend_error; past-ttl=30");
    }

    @Test
    void handle_followerOfACallWithAStaleEntry_theEntryStandsInForItToo() {
        // A follower skips the lookup (the leader's answer is the freshest there is), so it gets the leader's entry.
        Coalescer coalescer = new Coalescer(1 << 20);
        ExactCacheStage exact = new ExactCacheStage(store, coalescer);
        Exchange leader = entries.storedThenLater(HELLO, TTL.plusMinutes(3));
        exact.handle(leader, next);
        new CoalesceStage(coalescer).handle(leader, next);
        assertThat(leader.get(CoalesceStage.LEADING)).as("leads the call").isNotNull();

        Exchange follower = entries.keyed(HELLO);
        exact.handle(follower, next);
        assertThat(follower.get(CoalesceStage.FOLLOW)).as("follows it").isNotNull();
        leader.fail(ErrorKind.UPSTREAM_UNREACHABLE, "backend down", null);
        follower.fail(ErrorKind.UPSTREAM_UNREACHABLE, "backend down", null);

        assertThat(Exchanges.written(leader).header(GatewayHeaders.X_CACHE)).isEqualTo("STALE");
        Written followed = Exchanges.written(follower);
        assertThat(followed.header(GatewayHeaders.X_CACHE)).isEqualTo("STALE");
        assertThat(followed.body()).isEqualTo(Answers.HELLO);
    }

    @Test
    void handle_freshEntryWrittenWithAWindow_isAHit() {
        Exchange x = entries.storedThenLater(HELLO, TTL.minusSeconds(1));

        stage.handle(x, next);

        assertThat(next.called()).isFalse();
        assertThat(Exchanges.written(x).header(GatewayHeaders.X_CACHE)).isEqualTo("HIT");
    }
}
