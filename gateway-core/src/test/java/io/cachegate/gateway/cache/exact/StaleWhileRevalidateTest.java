package io.cachegate.gateway.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Policy;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.cache.CacheKeyStage;
import io.cachegate.gateway.cache.CacheKeys;
import io.cachegate.gateway.cache.CacheableRequest;
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
import io.cachegate.gateway.exchange.StageChain;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The exact cache stage with {@code stale_while_revalidate}: an entry past its TTL within the window answers at once,
 * and one background request per key (detached, through the miss path) refreshes it.
 */
class StaleWhileRevalidateTest {

    /** ttl 1h, stale_while_revalidate 1m, stale_if_error 10m; the route {@code small-*} turns revalidation off. */
    private static final Policy POLICY = Exchanges.policy("""
            server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1}
            backends:
              - {name: main, urls: ["http://replica-a:8000"], model_version: "llama@1"}
            cache:
              exact: {store: memory, ttl: 1h, stale_while_revalidate: 1m, stale_if_error: 10m}
            routes:
              - match: {model: "small-*"}
                cache: {stale_while_revalidate: 0s}
              - match: {model: "*"}
            """);
    private static final String HELLO = Exchanges.chatBody("llama-3.1-8b", "hello");
    private static final Duration TTL = Duration.ofHours(1);

    private final Exchanges exchanges = new Exchanges(POLICY);
    private final ScriptedStore store = new ScriptedStore(exchanges.ticker());
    private final CacheKeyStage keys = new CacheKeyStage(POLICY, new CacheKeys(POLICY, new ModelVersions()));
    private final Coalescer coalescer = new Coalescer(1 << 20);
    /** What reaches the backend's side of the miss path: the refreshes, held until a test ends them. */
    private final List<Exchange> upstream = new ArrayList<>();
    private final Revalidations revalidations = new Revalidations(
            StageChain.of(new CoalesceStage(coalescer), (x, next) -> upstream.add(x)), exchanges.metrics());
    private final ExactCacheStage stage = new ExactCacheStage(store, coalescer, revalidations);
    private final RecordingNext next = new RecordingNext();
    private final StoredEntries entries = new StoredEntries(exchanges, keys, store, TTL);

    @AfterEach
    void close() {
        for (Exchange refresh : upstream) {
            refresh.finish(499); // releases the request's copy
        }
        exchanges.close();
        store.close();
    }

    @Test
    void handle_entryWithinTheWindow_answersStaleAtOnce_andStartsOneRefresh() {
        Exchange x = entries.storedThenLater(HELLO, TTL.plusSeconds(20));

        stage.handle(x, next);

        assertThat(next.called()).as("the client does not wait for the backend").isFalse();
        Written written = Exchanges.written(x);
        assertThat(written.status()).isEqualTo(200);
        assertThat(written.header(GatewayHeaders.X_CACHE)).isEqualTo("STALE");
        assertThat(written.header(GatewayHeaders.X_CACHE_LAYER)).isEqualTo("exact");
        assertThat(written.header(HttpHeaderNames.AGE)).isEqualTo("3620");
        assertThat(written.header(GatewayHeaders.X_CACHE_STALE))
                .isEqualTo("while-revalidate; reason=revalidating; past-ttl=20");
        assertThat(written.body()).isEqualTo(Answers.HELLO);
        assertThat(exchanges.count("cachegate.cache.stale", "reason", "revalidating")).isEqualTo(1);
        assertThat(exchanges.count("cachegate.cache.lookups", "layer", "exact", "outcome", "stale")).isEqualTo(1);

        Exchanges.runPending(x); // the refresh is a task after the answer
        assertThat(upstream).hasSize(1);
        Exchange refresh = upstream.get(0);
        CacheableRequest c = refresh.get(CacheableRequest.KEY);
        assertThat(c.key()).isEqualTo(x.get(CacheableRequest.KEY).key());
        assertThat(c.decision().write()).as("its answer is stored").isTrue();
        assertThat(refresh.get(CoalesceStage.LEADING)).as("it leads the key's call").isNotNull();
        assertThat(refresh.requestId()).isNotEqualTo(x.requestId());
        assertThat(revalidations.running()).isEqualTo(1);
    }

    @Test
    void handle_manyRequestsWhileRefreshing_allStale_oneRefresh() {
        Exchange first = entries.storedThenLater(HELLO, TTL.plusSeconds(5));
        stage.handle(first, next);
        Exchanges.runPending(first);

        for (int i = 0; i < 5; i++) {
            exchanges.ticker().advance(Duration.ofSeconds(1));
            Exchange later = entries.keyed(HELLO);
            stage.handle(later, next);
            Exchanges.runPending(later);
            assertThat(Exchanges.written(later).header(GatewayHeaders.X_CACHE)).isEqualTo("STALE");
        }
        assertThat(next.called()).isFalse();
        assertThat(upstream).as("one refresh for the key").hasSize(1);
    }

    @Test
    void handle_streamWhileTheRefreshIsInFlight_answersStaleWithoutWaiting() {
        Exchange first = entries.storedThenLater(HELLO, TTL.plusSeconds(5));
        stage.handle(first, next);
        Exchanges.runPending(first);

        Exchange later = entries.keyed(HELLO); // finds the refresh in flight instead of looking the key up
        stage.handle(later, next);

        assertThat(later.get(CoalesceStage.FOLLOW)).as("does not follow the refresh").isNull();
        assertThat(Exchanges.written(later).header(GatewayHeaders.X_CACHE_STALE))
                .isEqualTo("while-revalidate; reason=revalidating; past-ttl=5");
    }

    @Test
    void refresh_ended_countedByOutcome_andTheKeyMayBeRefreshedAgain() {
        Exchange first = entries.storedThenLater(HELLO, TTL.plusSeconds(5));
        stage.handle(first, next);
        Exchanges.runPending(first);
        Exchange refresh = upstream.remove(0);
        assertThat(Exchanges.written(first).header(GatewayHeaders.X_CACHE)).isEqualTo("STALE");

        refresh.fail(ErrorKind.UPSTREAM_UNREACHABLE, "backend down", null);

        assertThat(Exchanges.written(first).nothing()).as("nothing of the refresh reaches the client").isTrue();
        assertThat(Exchanges.channel(first).isOpen()).isTrue();
        assertThat(exchanges.count("cachegate.cache.revalidations", "outcome", "failed")).isEqualTo(1);
        assertThat(revalidations.running()).isZero();

        Exchange again = entries.keyed(HELLO);
        stage.handle(again, next);
        Exchanges.runPending(again);
        assertThat(Exchanges.written(again).header(GatewayHeaders.X_CACHE)).as("the entry keeps serving").isEqualTo(
                "STALE");
        assertThat(upstream).as("a new refresh").hasSize(1);
    }

    @Test
    void handle_pastTheRevalidateWindow_withinStaleIfError_goesUpstreamAsAMiss() {
        Exchange x = entries.storedThenLater(HELLO, TTL.plusMinutes(2));

        stage.handle(x, next);

        assertThat(next.count(x)).isEqualTo(1);
        assertThat(x.isDone()).isFalse();
        assertThat(upstream).isEmpty();
        x.fail(ErrorKind.UPSTREAM_UNREACHABLE, "backend down", null);
        assertThat(Exchanges.written(x).header(GatewayHeaders.X_CACHE_STALE)).startsWith("if-error;");
    }

    @Test
    void handle_clientNarrowsTheWindow_orTurnsItOff() {
        Exchange narrowed = entries.storedThenLater(HELLO, TTL.plusSeconds(30), "Cache-Control", "stale-while-revalidate=10");
        stage.handle(narrowed, next);
        assertThat(next.count(narrowed)).as("30s past the TTL, the client takes 10s").isEqualTo(1);

        Exchange off = entries.keyed(HELLO, "Cache-Control", "stale-while-revalidate=0");
        stage.handle(off, next);
        assertThat(next.count(off)).isEqualTo(1);

        Exchange wider = entries.keyed(HELLO, "Cache-Control", "stale-while-revalidate=86400");
        stage.handle(wider, next);
        assertThat(Exchanges.written(wider).header(GatewayHeaders.X_CACHE)).as("within the policy's 1m")
                .isEqualTo("STALE");
    }

    @Test
    void handle_maxAgeOrNoCache_neverStale() {
        Exchange maxAge = entries.storedThenLater(HELLO, TTL.plusSeconds(5), "Cache-Control", "max-age=7200");
        stage.handle(maxAge, next);
        assertThat(next.count(maxAge)).isEqualTo(1);

        Exchange noCache = entries.keyed(HELLO, "Cache-Control", "no-cache");
        stage.handle(noCache, next);
        assertThat(next.count(noCache)).isEqualTo(1);
        assertThat(upstream).isEmpty();
    }

    @Test
    void handle_routeWithoutTheWindow_goesUpstream() {
        Exchange x = entries.storedThenLater(Exchanges.chatBody("small-model", "hello"), TTL.plusSeconds(5));

        stage.handle(x, next);

        assertThat(next.count(x)).isEqualTo(1);
        assertThat(upstream).isEmpty();
    }
}
