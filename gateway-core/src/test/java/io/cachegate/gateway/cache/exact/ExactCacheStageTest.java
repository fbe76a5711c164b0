package io.cachegate.gateway.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.CacheKey;
import io.cachegate.config.Policy;
import io.cachegate.gateway.cache.CacheKeyStage;
import io.cachegate.gateway.cache.CacheKeys;
import io.cachegate.gateway.cache.CacheableRequest;
import io.cachegate.gateway.cache.EntryAccess;
import io.cachegate.gateway.cache.ModelVersions;
import io.cachegate.gateway.cache.ScriptedStore;
import io.cachegate.gateway.cache.coalesce.CoalesceStage;
import io.cachegate.gateway.cache.coalesce.Coalescer;
import io.cachegate.gateway.cache.coalesce.SharedAnswer;
import io.cachegate.gateway.exchange.Answers;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Exchanges.Written;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.exchange.RecordingNext;
import io.cachegate.gateway.exchange.RecordingTap;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ExactCacheStageTest {

    private static final Policy POLICY = Exchanges.MEMORY_CACHE_POLICY;
    private static final String HELLO = Exchanges.chatBody("llama-3.1-8b", "hello");

    private final Exchanges exchanges = new Exchanges(POLICY);
    private final ScriptedStore store = new ScriptedStore(exchanges.ticker());
    private final Coalescer coalescer = new Coalescer(1 << 20);
    private final CacheKeyStage keys = new CacheKeyStage(POLICY, new CacheKeys(POLICY, new ModelVersions()));
    private final ExactCacheStage stage = new ExactCacheStage(store, coalescer);
    private final RecordingNext next = new RecordingNext();

    @AfterEach
    void close() {
        exchanges.close();
        store.close();
    }

    @Test
    void handle_storedAnswer_isWrittenAsHit_withoutTheNextStage() {
        Exchange x = keyed(HELLO);
        stored(x, Answers.HELLO);
        exchanges.ticker().advance(Duration.ofSeconds(5));

        stage.handle(x, next);

        Written written = Exchanges.written(x);
        assertThat(next.called()).isFalse();
        assertThat(written.status()).isEqualTo(200);
        assertThat(written.header(GatewayHeaders.X_CACHE)).isEqualTo("HIT");
        assertThat(written.header(GatewayHeaders.X_CACHE_LAYER)).isEqualTo("exact");
        assertThat(written.header(HttpHeaderNames.AGE)).isEqualTo("5");
        assertThat(written.header("x-cache-origin-request-id")).isEqualTo("origin-1");
        assertThat(written.body()).isEqualTo(Answers.HELLO);
        assertThat(written.complete()).isTrue();
        assertThat(written.open()).as("kept alive").isTrue();
        assertThat(exchanges.count("cachegate.cache.lookups", "layer", "exact", "outcome", "hit")).isEqualTo(1);
        assertThat(exchanges.count("cachegate.cache.tokens.saved")).isEqualTo(7);
    }

    @Test
    void handle_hit_recordsTheRequestOnce() {
        Exchange x = keyed(HELLO);
        stored(x, Answers.HELLO);

        stage.handle(x, next);
        x.finish(500); // a later finish, by mistake, changes nothing

        assertThat(x.isDone()).isTrue();
        assertThat(exchanges.finishedCount(x)).isEqualTo(1);
        assertThat(exchanges.requestsFinished()).isEqualTo(1);
        assertThat(exchanges.requestsFinished("status", "200")).isEqualTo(1);
        assertThat(exchanges.metrics().registry().get("cachegate.request.duration").timer().count()).isEqualTo(1);
        assertThat(exchanges.metrics().inFlight()).isZero();
    }

    @Test
    void handle_streamedRequest_hitIsReplayedAsServerSentEvents() {
        Exchange x = keyed("{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"max_tokens\":16,\"stream\":true,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}");
        stored(x, Answers.HELLO);

        stage.handle(x, next);

        Written written = Exchanges.written(x);
        assertThat(next.called()).isFalse();
        assertThat(written.header(GatewayHeaders.X_CACHE)).isEqualTo("HIT");
        assertThat(written.header(HttpHeaderNames.CONTENT_TYPE)).startsWith("text/event-stream");
        assertThat(written.body()).startsWith("data: ").contains("\"object\":\"chat.completion.chunk\"")
                .contains("{\"content\":\"Hello\"}", "{\"content\":\" there\"}", "\"finish_reason\":\"stop\"")
                .endsWith("data: [DONE]\n\n");
        assertThat(written.complete()).isTrue();
    }

    @Test
    void handle_hit_tapsSeeItAsTheClientGetsIt_json() {
        Exchange x = keyed(HELLO);
        RecordingTap tap = new RecordingTap();
        x.addTap(tap);
        stored(x, Answers.HELLO);

        stage.handle(x, next);

        Written written = Exchanges.written(x);
        assertThat(tap.outline()).containsExactly("head 200", "content", "complete");
        assertThat(tap.body()).isEqualTo(written.body()).isEqualTo(Answers.HELLO);
        assertThat(tap.header(GatewayHeaders.X_CACHE)).isEqualTo("HIT");
    }

    @Test
    void handle_hit_tapsSeeItAsTheClientGetsIt_stream() {
        Exchange x = keyed("{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"max_tokens\":16,\"stream\":true,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}");
        RecordingTap tap = new RecordingTap();
        x.addTap(tap);
        stored(x, Answers.HELLO);

        stage.handle(x, next);

        Written written = Exchanges.written(x);
        assertThat(tap.outline()).containsExactly("head 200", "content", "complete");
        assertThat(tap.body()).isEqualTo(written.body()).endsWith("data: [DONE]\n\n");
    }

    @Test
    void handle_hit_carriesTheHeadersStagesSet() {
        Exchange x = keyed(HELLO);
        x.responseHeader("x-ratelimit-limit-requests", "5");
        stored(x, Answers.HELLO);

        stage.handle(x, next);

        Written written = Exchanges.written(x);
        assertThat(written.header("x-ratelimit-limit-requests")).isEqualTo("5");
        assertThat(written.header(GatewayHeaders.X_CACHE)).isEqualTo("HIT");
    }

    @Test
    void handle_nothingStored_proceedsAsMiss() {
        Exchange x = keyed(HELLO);

        stage.handle(x, next);

        assertThat(next.count(x)).isEqualTo(1);
        assertThat(Exchanges.written(x).nothing()).isTrue();
        assertThat(x.isDone()).isFalse();
        assertThat(x.get(CacheableRequest.KEY)).as("the capture still needs it").isNotNull();
        assertThat(store.gets()).isEqualTo(1);
        assertThat(exchanges.count("cachegate.cache.lookups", "layer", "exact", "outcome", "miss")).isEqualTo(1);
    }

    @Test
    void handle_entryOlderThanTheClientsMaxAge_proceedsAsMiss() {
        Exchange x = keyed(HELLO, "Cache-Control", "max-age=10");
        stored(x, Answers.HELLO);
        exchanges.ticker().advance(Duration.ofSeconds(11));

        stage.handle(x, next);

        assertThat(next.count(x)).isEqualTo(1);
        assertThat(Exchanges.written(x).nothing()).isTrue();
        assertThat(exchanges.count("cachegate.cache.lookups", "layer", "exact", "outcome", "miss")).isEqualTo(1);
    }

    @Test
    void handle_storeFails_failsOpen_stillCacheable_soItCoalesces_butNoOtherCacheIsAsked() {
        store.failGets(new IllegalStateException("redis down"));
        Exchange x = keyed(HELLO);

        stage.handle(x, next);

        assertThat(next.count(x)).isEqualTo(1);
        CacheableRequest c = x.get(CacheableRequest.KEY);
        assertThat(c).as("identical requests still share one call while the store is down").isNotNull();
        assertThat(c.lookupsDone()).as("the semantic cache's entries are in the same store").isTrue();
        assertThat(Exchanges.written(x).nothing()).isTrue();
        assertThat(exchanges.count("cachegate.cache.lookups", "layer", "exact", "outcome", "error")).isEqualTo(1);
        assertThat(exchanges.count("cachegate.cache.bypass", "reason", "store_unavailable")).isZero();
    }

    @Test
    void handle_slowStoreThenFails_failsOpen() {
        store.deferGets();
        Exchange x = keyed(HELLO);

        stage.handle(x, next);
        assertThat(next.called()).as("waiting for the store").isFalse();
        // An embedded channel's loop is every thread: the failure arrives "on the exchange's loop", where the stage
        // goes on at once (Exchange.resumeHere) instead of queueing a hop, as a Redis answer on the gateway's loops does.
        store.waitingGet(0).completeExceptionally(new IllegalStateException("timed out"));

        assertThat(next.count(x)).isEqualTo(1);
        assertThat(x.get(CacheableRequest.KEY).lookupsDone()).isTrue();
        assertThat(exchanges.count("cachegate.cache.lookups", "layer", "exact", "outcome", "error")).isEqualTo(1);
    }

    @Test
    void handle_slowStoreAnswersAfterTheClientLeft_doesNothing() {
        store.deferGets();
        Exchange x = keyed(HELLO);
        stage.handle(x, next);

        x.cancel();
        store.waitingGet(0).complete(Optional.of(entry(Answers.HELLO)));
        Exchanges.runPending(x);

        assertThat(next.called()).isFalse();
        assertThat(Exchanges.written(x).nothing()).isTrue();
        assertThat(exchanges.requestsFinished("status", "499")).isEqualTo(1);
    }

    @Test
    void handle_identicalAnswerInFlight_skipsTheLookup() {
        Exchange leader = keyed(HELLO);
        new CoalesceStage(coalescer).handle(leader, new RecordingNext());
        Exchange x = keyed(HELLO);
        stored(x, Answers.HELLO);

        stage.handle(x, next);

        assertThat(next.count(x)).isEqualTo(1);
        assertThat(store.gets()).isZero();
        assertThat(x.get(CacheableRequest.KEY).lookupsDone()).isTrue();
        assertThat(Exchanges.written(x).nothing()).isTrue();
    }

    @Test
    void handle_identicalAnswerStoredAndLingering_isLookedUp_aHitAsUsual() {
        Exchange leader = keyed(HELLO);
        new CoalesceStage(coalescer).handle(leader, new RecordingNext());
        SharedAnswer flight = leader.get(CoalesceStage.LEADING);
        flight.onHead(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
        flight.onComplete();
        Exchange x = keyed(HELLO);
        stored(x, Answers.HELLO);
        flight.settle(SharedAnswer.Outcome.STORED);

        stage.handle(x, next);

        assertThat(store.gets()).as("its entry is readable: a new request is a hit").isEqualTo(1);
        assertThat(next.called()).isFalse();
        assertThat(Exchanges.written(x).header(GatewayHeaders.X_CACHE)).isEqualTo("HIT");
    }

    @Test
    void handle_notCacheable_proceedsWithoutALookup() {
        Exchange x = exchanges.chat(HELLO); // CacheKeyStage did not run: no CacheableRequest

        stage.handle(x, next);

        assertThat(next.count(x)).isEqualTo(1);
        assertThat(store.gets()).isZero();
    }

    @Test
    void handle_entryWithALabelTheKeyDoesNotHold_isAMiss_likeNoEntry() {
        Exchange x = keyed(HELLO, access(Set.of(), Set.of("finance")));
        store.put(x.get(CacheableRequest.KEY).key(), labelledEntry(Set.of("hr", "finance")), Duration.ofHours(1)).join();

        stage.handle(x, next);

        assertThat(next.count(x)).isEqualTo(1);
        assertThat(Exchanges.written(x).nothing()).isTrue();
        assertThat(exchanges.count("cachegate.cache.lookups", "layer", "exact", "outcome", "miss")).isEqualTo(1);
    }

    @Test
    void handle_entryWhoseEveryLabelTheKeyHolds_isAHit() {
        Exchange x = keyed(HELLO, access(Set.of(), Set.of("finance", "hr", "legal")));
        store.put(x.get(CacheableRequest.KEY).key(), labelledEntry(Set.of("hr", "finance")), Duration.ofHours(1)).join();

        stage.handle(x, next);

        assertThat(next.called()).isFalse();
        assertThat(Exchanges.written(x).header(GatewayHeaders.X_CACHE)).isEqualTo("HIT");
    }

    @Test
    void keyStage_declaredLabels_partOfTheKey_soDifferentlyLabelledRequestsNeverShareAnEntryOrAFlight() {
        CacheKey none = keyed(HELLO, access(Set.of(), Set.of("hr"))).get(CacheableRequest.KEY).key();
        CacheKey hr = keyed(HELLO, access(Set.of("hr"), Set.of("hr"))).get(CacheableRequest.KEY).key();
        CacheKey hrAgain = keyed(HELLO, access(Set.of("hr"), Set.of("hr", "x"))).get(CacheableRequest.KEY).key();

        assertThat(hr).isNotEqualTo(none).isEqualTo(hrAgain);
        assertThat(none).as("unlabelled keys as before").isEqualTo(keyed(HELLO).get(CacheableRequest.KEY).key());
    }

    private static EntryAccess access(Set<String> declared, Set<String> held) {
        return new EntryAccess(declared, held, true, "");
    }

    private CacheEntry labelledEntry(Set<String> labels) {
        return new CacheEntry(Answers.HELLO.getBytes(StandardCharsets.UTF_8), exchanges.ticker().wallMillis(),
                "llama@1", "origin-1", 5, 2, Set.of(), labels, "");
    }

    private Exchange keyed(String body, EntryAccess access) {
        Exchange x = exchanges.chat(body);
        x.set(EntryAccess.KEY, access);
        RecordingNext keyed = new RecordingNext();
        keys.handle(x, keyed);
        assertThat(keyed.count(x)).isEqualTo(1);
        return x;
    }

    private Exchange keyed(String body, String... headers) {
        Exchange x = exchanges.chat(body, headers);
        RecordingNext keyed = new RecordingNext();
        keys.handle(x, keyed);
        assertThat(keyed.count(x)).isEqualTo(1);
        assertThat(x.get(CacheableRequest.KEY)).as("cacheable").isNotNull();
        return x;
    }

    private void stored(Exchange x, String answer) {
        CacheKey key = x.get(CacheableRequest.KEY).key();
        store.put(key, entry(answer), Duration.ofHours(1)).join();
    }

    private CacheEntry entry(String answer) {
        return new CacheEntry(answer.getBytes(StandardCharsets.UTF_8), exchanges.ticker().wallMillis(), "llama@1",
                "origin-1", 5, 2, Set.of());
    }
}
