package io.cachegate.gateway.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.PurgeScope;
import io.cachegate.cache.exact.UserDigest;
import io.cachegate.cache.semantic.Embedder;
import io.cachegate.config.AuditSettings;
import io.cachegate.config.Policy;
import io.cachegate.gateway.cache.CacheKeyStage;
import io.cachegate.gateway.cache.CacheKeys;
import io.cachegate.gateway.cache.CacheableRequest;
import io.cachegate.gateway.cache.EntryAccess;
import io.cachegate.gateway.cache.ModelVersions;
import io.cachegate.gateway.cache.ScriptedStore;
import io.cachegate.gateway.cache.audit.HitAudits;
import io.cachegate.gateway.cache.coalesce.Coalescer;
import io.cachegate.gateway.cache.exact.ExactCacheStage;
import io.cachegate.gateway.exchange.Answers;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.exchange.Exchanges.Written;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.exchange.RecordingNext;
import io.cachegate.gateway.exchange.RecordingTap;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SemanticCacheStageTest {

    private static final Policy POLICY = Exchanges.policy("""
            server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1}
            backends:
              - {name: main, urls: ["http://replica-a:8000"], model_version: "llama@1"}
            cache:
              exact: {store: memory, ttl: 1h}
              semantic: {enabled: true, decision: cosine, threshold: 0.9, sweep_interval: 1h}
            routes:
              - cache: {semantic: true, semantic_max_turns: 1}
            """);
    private static final String ASKED = "How do I reset my password?";
    private static final String PARAPHRASE = "How can I reset my password?";
    private static final String UNRELATED = "What are your opening hours?";

    private final Exchanges exchanges = new Exchanges(POLICY);
    private final ScriptedStore store = new ScriptedStore(exchanges.ticker());
    // ASKED and PARAPHRASE: cosine 1 / sqrt(1.09) = 0.9578, above the 0.9 threshold; UNRELATED: cosine 0.
    private final FakeEmbedder embedder = new FakeEmbedder()
            .with(ASKED, 1, 0, 0, 0)
            .with(PARAPHRASE, 1, 0.3f, 0, 0)
            .with(UNRELATED, 0, 1, 0, 0);
    private final MemoryVectorIndex index = new MemoryVectorIndex();
    private final SemanticCache semantic = new SemanticCache(POLICY.cache().semantic(), embedder, index,
            exchanges.metrics().semantic(), exchanges.ticker());
    private final CacheKeyStage keys = new CacheKeyStage(POLICY, new CacheKeys(POLICY, new ModelVersions()));
    /** Never audits (rate 0): audits have their own tests. */
    private final HitAudits audits = new HitAudits(new AuditSettings(0, 1, 0.9, AuditSettings.OnWrong.DEMOTE),
            semantic.evidence(), embedder, index, store, null, null, false, exchanges.metrics().audits());
    private final SemanticCacheStage stage = new SemanticCacheStage(semantic, store, audits, exchanges.metrics());
    private final RecordingNext next = new RecordingNext();

    @AfterEach
    void close() {
        exchanges.close();
        semantic.close();
        store.close();
    }

    @Test
    void handle_paraphraseOfAnAnsweredQuestion_isWrittenAsSemanticHit_andWarmsTheExactCache() {
        answeredAndIndexed(ASKED);
        Exchange x = keyed(PARAPHRASE);

        stage.handle(x, next);
        assertThat(Exchanges.written(x).nothing()).as("the lookup resumes on the exchange's event loop").isTrue();
        Exchanges.runPending(x);

        Written written = Exchanges.written(x);
        assertThat(next.called()).isFalse();
        assertThat(written.status()).isEqualTo(200);
        assertThat(written.header(GatewayHeaders.X_CACHE)).isEqualTo("HIT");
        assertThat(written.header(GatewayHeaders.X_CACHE_LAYER)).isEqualTo("semantic");
        assertThat(written.header(GatewayHeaders.X_CACHE_SIMILARITY)).isEqualTo("0.9578");
        assertThat(written.header(GatewayHeaders.SERVER_TIMING)).contains("embed;dur=", "search;dur=");
        assertThat(written.body()).isEqualTo(Answers.HELLO);
        assertThat(store.stored(x.get(CacheableRequest.KEY).key())).as("filed under its own key too").isPresent();
        assertThat(exchanges.count("cachegate.cache.lookups", "layer", "semantic", "outcome", "hit")).isEqualTo(1);
        assertThat(exchanges.requestsFinished("status", "200")).isEqualTo(1);
        assertThat(exchanges.finishedCount(x)).isEqualTo(1);
    }

    @Test
    void handle_semanticHit_tapsSeeItAsTheClientGetsIt() {
        answeredAndIndexed(ASKED);
        Exchange x = keyed(PARAPHRASE);
        RecordingTap tap = new RecordingTap();
        x.addTap(tap);

        stage.handle(x, next);
        Exchanges.runPending(x);

        Written written = Exchanges.written(x);
        assertThat(tap.outline()).containsExactly("head 200", "content", "complete");
        assertThat(tap.body()).isEqualTo(written.body()).isEqualTo(Answers.HELLO);
        assertThat(tap.header(GatewayHeaders.X_CACHE_LAYER)).isEqualTo("semantic");
    }

    @Test
    void handle_streamedSemanticHit_tapsSeeTheReplay() {
        answeredAndIndexed(ASKED);
        Exchange x = keyedBody(Exchanges.chatBody("llama-3.1-8b", PARAPHRASE)
                .replace("\"temperature\":0,", "\"temperature\":0,\"stream\":true,"));
        RecordingTap tap = new RecordingTap();
        x.addTap(tap);

        stage.handle(x, next);
        Exchanges.runPending(x);

        Written written = Exchanges.written(x);
        assertThat(written.header(GatewayHeaders.X_CACHE_LAYER)).isEqualTo("semantic");
        assertThat(tap.outline()).containsExactly("head 200", "content", "complete");
        assertThat(tap.body()).isEqualTo(written.body()).endsWith("data: [DONE]\n\n");
    }

    @Test
    void handle_speculativeHit_theTapsFromBeforeSeeIt_thoseOfTheStagesAfterAreLetGo() {
        Policy speculative = Exchanges.policy("""
                server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1}
                backends:
                  - {name: main, urls: ["http://replica-a:8000"], model_version: "llama@1"}
                cache:
                  exact: {store: memory, ttl: 1h}
                  semantic: {enabled: true, decision: cosine, threshold: 0.9, sweep_interval: 1h,
                             speculative_upstream: true}
                routes:
                  - cache: {semantic: true, semantic_max_turns: 1}
                """);
        SemanticCache tentative = new SemanticCache(speculative.cache().semantic(), embedder, index,
                exchanges.metrics().semantic(), exchanges.ticker());
        answeredAndIndexed(ASKED);
        Exchange x = keyed(PARAPHRASE);
        RecordingTap before = new RecordingTap();
        x.addTap(before);

        new SemanticCacheStage(tentative, store, audits, exchanges.metrics()).handle(x, next);
        assertThat(next.count(x)).as("the path goes on while the lookup runs").isEqualTo(1);
        RecordingTap capture = new RecordingTap(); // as the capture stage puts one on
        x.addTap(capture);
        Exchanges.runPending(x);

        Written written = Exchanges.written(x);
        assertThat(written.header(GatewayHeaders.X_CACHE_LAYER)).isEqualTo("semantic");
        assertThat(before.outline()).containsExactly("head 200", "content", "complete");
        assertThat(before.body()).isEqualTo(written.body());
        assertThat(capture.events()).as("never stores a hit's answer again").containsExactly("abort");
        tentative.close();
    }

    @Test
    void anEarlyEmbedding_isTheOneTheLookupUses() {
        answeredAndIndexed(ASKED);
        int before = embedder.calls();
        Exchange x = keyed(PARAPHRASE);

        new EarlyEmbedStage(semantic).handle(x, next);
        assertThat(x.get(CacheableRequest.KEY).earlyVector()).as("started before the exact lookup").isNotNull();
        assertThat(embedder.calls()).isEqualTo(before + 1);
        stage.handle(x, next);
        Exchanges.runPending(x);

        assertThat(Exchanges.written(x).header(GatewayHeaders.X_CACHE_LAYER)).isEqualTo("semantic");
        assertThat(embedder.calls()).as("the lookup embedded nothing more").isEqualTo(before + 1);
    }

    @Test
    void anExactHit_cancelsTheEarlyEmbedding() {
        answeredAndIndexed(ASKED);
        Exchange x = keyed(ASKED);
        CompletableFuture<float[]> pending = new CompletableFuture<>();
        x.get(CacheableRequest.KEY).earlyVector(pending);

        new ExactCacheStage(store, new Coalescer(
                1 << 20)).handle(x, next);
        Exchanges.runPending(x);

        assertThat(Exchanges.written(x).header(GatewayHeaders.X_CACHE)).isEqualTo("HIT");
        assertThat(pending.isCancelled()).as("no semantic lookup will read it").isTrue();
        assertThat(x.get(CacheableRequest.KEY).earlyVector()).isNull();
    }

    @Test
    void embedEarly_cancelled_takesTheTextOffTheEmbeddersQueue() {
        CompletableFuture<float[][]> queued = new CompletableFuture<>();
        SemanticCache held = new SemanticCache(POLICY.cache().semantic(), new QueuedEmbedder(queued), new MemoryVectorIndex(),
                exchanges.metrics().semantic(), exchanges.ticker());
        try {
            CompletableFuture<float[]> early = held.embedEarly(ASKED);
            early.cancel(false);
            assertThat(queued.isCancelled()).isTrue();
        } finally {
            held.close();
        }
    }

    @Test
    void handle_noNeighbourCloseEnough_proceedsAsMiss_keepingTheVectorForTheWriteBack() {
        answeredAndIndexed(ASKED);
        Exchange x = keyed(UNRELATED);

        stage.handle(x, next);
        assertThat(next.called()).as("the lookup resumes on the exchange's event loop, not the embedder's thread")
                .isFalse();
        Exchanges.runPending(x);

        assertThat(next.count(x)).isEqualTo(1);
        assertThat(Exchanges.written(x).nothing()).isTrue();
        assertThat(x.get(CacheableRequest.KEY).vector()).containsExactly(0, 1, 0, 0);
        assertThat(exchanges.count("cachegate.cache.lookups", "layer", "semantic", "outcome", "miss")).isEqualTo(1);
        assertThat(exchanges.count("cachegate.semantic.similarity", "result", "near_miss")).isEqualTo(1);
    }

    @Test
    void handle_secondUserTurn_isIneligible_andNothingIsEmbedded() {
        Exchange x = keyedBody("{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"messages\":["
                + "{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"hello\"},"
                + "{\"role\":\"user\",\"content\":\"" + ASKED + "\"}]}");

        stage.handle(x, next);

        assertThat(x.get(CacheableRequest.KEY).query()).as("CacheKeyStage set no query").isNull();
        assertThat(next.count(x)).as("at once, not after a lookup").isEqualTo(1);
        assertThat(embedder.calls()).isZero();
        assertThat(exchanges.count("cachegate.cache.lookups", "layer", "semantic", "outcome", "ineligible"))
                .isEqualTo(1);
    }

    @Test
    void handle_embedderFails_proceedsAsMiss_andCountsTheFailOpen() {
        answeredAndIndexed(ASKED);
        embedder.failWith(new IllegalStateException("embedder queue full"));
        Exchange x = keyed(PARAPHRASE);

        stage.handle(x, next);
        assertThat(next.called()).as("resumes on the exchange's event loop").isFalse();
        Exchanges.runPending(x);

        assertFailedOpen(x, "embed");
        assertThat(x.get(CacheableRequest.KEY).vector()).isNull();
    }

    @Test
    void handle_embedderThrows_proceedsAsMiss_andCountsTheFailOpen() {
        answeredAndIndexed(ASKED);
        embedder.throwOnCall();
        Exchange x = keyed(PARAPHRASE);

        stage.handle(x, next);
        Exchanges.runPending(x);

        assertFailedOpen(x, "embed");
    }

    @Test
    void handle_indexDown_proceedsAsMiss_andCountsTheFailOpen() {
        answeredAndIndexed(ASKED);
        index.failSearches(new IllegalStateException("index unavailable"));
        Exchange x = keyed(PARAPHRASE);

        stage.handle(x, next);
        Exchanges.runPending(x);

        assertFailedOpen(x, "search");
        assertThat(x.get(CacheableRequest.KEY).vector()).as("embedded before the search failed").isNotNull();
    }

    @Test
    void handle_neighbourWhoseAnswerIsGone_isMiss_andTheDanglingEntryIsRemoved() {
        Exchange asked = keyed(ASKED);
        CacheableRequest c = asked.get(CacheableRequest.KEY);
        semantic.writeBack(c.query(), null, c.key(), Set.of(), Duration.ofHours(1), Set.of(), ""); // indexed, never stored
        Exchange x = keyed(PARAPHRASE);

        stage.handle(x, next);
        Exchanges.runPending(x);

        assertThat(next.count(x)).isEqualTo(1);
        assertThat(Exchanges.written(x).nothing()).isTrue();
        assertThat(index.contains(c.key().redisKey())).isFalse();
        assertThat(exchanges.count("cachegate.semantic.dangling")).isEqualTo(1);
        assertThat(exchanges.count("cachegate.cache.lookups", "layer", "semantic", "outcome", "miss")).isEqualTo(1);
    }

    @Test
    void handle_lookupsDone_proceedsWithoutEmbedding() {
        Exchange x = keyed(PARAPHRASE);
        x.get(CacheableRequest.KEY).endLookups(); // an identical answer is in flight

        stage.handle(x, next);

        assertThat(next.count(x)).isEqualTo(1);
        assertThat(embedder.calls()).isZero();
    }

    private void assertFailedOpen(Exchange x, String part) {
        assertThat(next.count(x)).isEqualTo(1);
        assertThat(Exchanges.written(x).nothing()).isTrue();
        assertThat(x.isDone()).isFalse();
        assertThat(exchanges.count("cachegate.semantic.fail_open", "stage", part)).isEqualTo(1);
        assertThat(exchanges.count("cachegate.cache.lookups", "layer", "semantic", "outcome", "error")).isEqualTo(1);
    }

    @Test
    void handle_paraphraseOfALabelledAnswer_keyWithoutTheLabel_isAMiss() {
        answeredAndIndexed(ASKED, Set.of("hr"), Set.of("hr"));
        Exchange x = keyed(PARAPHRASE, new EntryAccess(Set.of(), Set.of("finance"), true, ""));

        stage.handle(x, next);
        Exchanges.runPending(x);

        assertThat(next.count(x)).isEqualTo(1);
        assertThat(Exchanges.written(x).nothing()).isTrue();
        assertThat(exchanges.count("cachegate.cache.lookups", "layer", "semantic", "outcome", "miss")).isEqualTo(1);
    }

    @Test
    void handle_paraphraseOfALabelledAnswer_keyHoldingTheLabel_isAHit_withoutDeclaringIt() {
        answeredAndIndexed(ASKED, Set.of("hr"), Set.of("hr"));
        Exchange x = keyed(PARAPHRASE, new EntryAccess(Set.of(), Set.of("hr"), true, ""));

        stage.handle(x, next);
        Exchanges.runPending(x);

        assertThat(next.called()).isFalse();
        assertThat(Exchanges.written(x).header(GatewayHeaders.X_CACHE)).isEqualTo("HIT");
    }

    @Test
    void handle_indexEntryUnlabelled_butTheExactEntryLabelled_isAMiss() {
        // The index said readable; the entry it points at says otherwise (written elsewhere, or planted): the entry wins.
        answeredAndIndexed(ASKED, Set.of("hr"), Set.of());
        Exchange x = keyed(PARAPHRASE, new EntryAccess(Set.of(), Set.of(), true, ""));

        stage.handle(x, next);
        Exchanges.runPending(x);

        assertThat(next.count(x)).isEqualTo(1);
        assertThat(Exchanges.written(x).nothing()).isTrue();
    }

    @Test
    void handle_neighbourWhoseEntryIsPastItsTtl_isAMiss() {
        // Kept past its TTL to answer its own key's requests stale when the backend fails (stale_if_error): never a
        // paraphrase's hit, even while the index still points at it.
        CacheableRequest c = keyed(ASKED).get(CacheableRequest.KEY);
        store.put(c.key(), new CacheEntry(Answers.HELLO.getBytes(StandardCharsets.UTF_8),
                exchanges.ticker().wallMillis(), "llama@1", "origin-1", 5, 2, Set.of()).freshFor(3_600_000),
                Duration.ofMinutes(70)).join();
        semantic.writeBack(c.query(), null, c.key(), Set.of(), Duration.ofHours(2), Set.of(), "");
        exchanges.ticker().advance(Duration.ofMinutes(61));
        Exchange x = keyed(PARAPHRASE);

        stage.handle(x, next);
        Exchanges.runPending(x);

        assertThat(next.count(x)).isEqualTo(1);
        assertThat(Exchanges.written(x).nothing()).isTrue();
        assertThat(exchanges.count("cachegate.cache.lookups", "layer", "semantic", "outcome", "miss")).isEqualTo(1);
    }

    @Test
    void purge_byUser_removesTheIndexEntriesWrittenForThatUserOnly() {
        CacheableRequest alice = keyed(ASKED).get(CacheableRequest.KEY);
        CacheableRequest bob = keyed(UNRELATED).get(CacheableRequest.KEY);
        semantic.writeBack(alice.query(), null, alice.key(), Set.of(), Duration.ofHours(1), Set.of("hr"),
                UserDigest.of("alice"));
        semantic.writeBack(bob.query(), null, bob.key(), Set.of(), Duration.ofHours(1), Set.of(), UserDigest.of("bob"));

        assertThat(semantic.purge(PurgeScope.user(UserDigest.of("alice"))).join()).isEqualTo(1);

        assertThat(index.contains(alice.key().redisKey())).isFalse();
        assertThat(index.contains(bob.key().redisKey())).isTrue();
    }

    /** {@code question} was answered ({@link Answers#HELLO} stored under its key) and filed in the index. */
    private void answeredAndIndexed(String question) {
        answeredAndIndexed(question, Set.of(), Set.of());
    }

    private void answeredAndIndexed(String question, Set<String> entryLabels, Set<String> indexLabels) {
        CacheableRequest c = keyed(question).get(CacheableRequest.KEY);
        store.put(c.key(), new CacheEntry(Answers.HELLO.getBytes(StandardCharsets.UTF_8),
                exchanges.ticker().wallMillis(), "llama@1", "origin-1", 5, 2, Set.of(), entryLabels, ""),
                Duration.ofHours(1)).join();
        semantic.writeBack(c.query(), null, c.key(), Set.of(), Duration.ofHours(1), indexLabels, "");
        assertThat(exchanges.count("cachegate.semantic.writes", "outcome", "written")).isPositive();
    }

    private Exchange keyed(String question) {
        return keyedBody(Exchanges.chatBody("llama-3.1-8b", question));
    }

    private Exchange keyed(String question, EntryAccess access) {
        return keyedBody(Exchanges.chatBody("llama-3.1-8b", question), access);
    }

    private Exchange keyedBody(String body) {
        return keyedBody(body, null);
    }

    private Exchange keyedBody(String body, EntryAccess access) {
        Exchange x = exchanges.chat(body);
        if (access != null) {
            x.set(EntryAccess.KEY, access);
        }
        RecordingNext keyed = new RecordingNext();
        keys.handle(x, keyed);
        assertThat(keyed.count(x)).isEqualTo(1);
        assertThat(x.get(CacheableRequest.KEY)).as("cacheable").isNotNull();
        return x;
    }

    /** An embedder whose every call returns one future the test holds: a text waiting in a queue. */
    private record QueuedEmbedder(CompletableFuture<float[][]> queued)
            implements Embedder {

        @Override
        public CompletableFuture<float[][]> embed(List<String> texts) {
            return queued;
        }

        @Override
        public int dimension() {
            return FakeEmbedder.DIMENSION;
        }

        @Override
        public String modelId() {
            return FakeEmbedder.MODEL_ID;
        }

        @Override
        public void close() {
        }
    }
}
