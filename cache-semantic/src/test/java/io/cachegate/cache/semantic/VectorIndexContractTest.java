package io.cachegate.cache.semantic;

import static io.cachegate.cache.semantic.TestVectors.DIMENSION;
import static io.cachegate.cache.semantic.TestVectors.HOUR;
import static io.cachegate.cache.semantic.TestVectors.NOW;
import static io.cachegate.cache.semantic.TestVectors.axis;
import static io.cachegate.cache.semantic.TestVectors.entry;
import static io.cachegate.cache.semantic.TestVectors.expiring;
import static io.cachegate.cache.semantic.TestVectors.labelled;
import static io.cachegate.cache.semantic.TestVectors.towards;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.cachegate.testkit.FakeTicker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The behaviour every {@link VectorIndex} promises, run against each implementation by a subclass. */
abstract class VectorIndexContractTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    protected VectorIndex index;

    /** A new, empty index of {@link TestVectors#DIMENSION}. */
    protected abstract VectorIndex newIndex() throws Exception;

    @BeforeEach
    void openIndex() throws Exception {
        index = newIndex();
    }

    @AfterEach
    void closeIndex() {
        index.close();
    }

    protected static <T> T await(CompletableFuture<T> future) {
        return future.orTimeout(WAIT.toMillis(), TimeUnit.MILLISECONDS).join();
    }

    protected List<Neighbour> search(String scope, float[] vector, int k) {
        return await(index.search(scope, vector, k, NOW));
    }

    protected static List<String> keys(List<Neighbour> neighbours) {
        return neighbours.stream().map(Neighbour::entryKey).toList();
    }

    @Test
    void search_sameVectorInTwoScopes_returnsOnlyTheQueriedScope() {
        await(index.add(entry("k-a", "scope-a", axis(0))));
        await(index.add(entry("k-b", "scope-b", axis(0))));

        assertThat(keys(search("scope-a", axis(0), 10))).containsExactly("k-a");
        assertThat(keys(search("scope-b", axis(0), 10))).containsExactly("k-b");
        assertThat(search("scope-c", axis(0), 10)).isEmpty();
    }

    @Test
    void search_scopeIsComparedExactly_notAsAPrefixOrPattern() {
        await(index.add(entry("k-1", "tenant=acme|sys=abc", axis(0))));

        assertThat(search("tenant=acme|sys=ab", axis(0), 10)).isEmpty();
        assertThat(search("tenant=acme|sys=abc ", axis(0), 10)).isEmpty();
        assertThat(search("*", axis(0), 10)).isEmpty();
    }

    @Test
    void search_returnsNearestFirstWithCosineSimilarityAndStoredFields() {
        float[] query = axis(0);
        await(index.add(entry("far", "s", towards(query, 1, 2.0f))));
        await(index.add(entry("exact", "s", query)));
        await(index.add(entry("near", "s", towards(query, 1, 0.2f))));
        await(index.add(entry("opposite", "s", towards(axis(2), 0, -0.5f))));

        List<Neighbour> found = search("s", query, 3);

        assertThat(keys(found)).containsExactly("exact", "near", "far");
        assertThat(found.get(0).similarity()).isCloseTo(1.0f, within(1e-4f));
        float nearCosine = towards(query, 1, 0.2f)[0];
        assertThat(found.get(1).similarity()).isCloseTo(nearCosine, within(1e-4f));
        assertThat(found.get(0).text()).isEqualTo("text of exact");
        assertThat(found.get(0).createdAtMillis()).isEqualTo(NOW);
        assertThat(found.get(0).expiresAtMillis()).isEqualTo(NOW + HOUR);
    }

    @Test
    void search_kBounded_returnsAtMostK() {
        for (int i = 0; i < 8; i++) {
            await(index.add(entry("k" + i, "s", towards(axis(0), 1 + i % 4, 0.1f * (i + 1)))));
        }
        assertThat(search("s", axis(0), 3)).hasSize(3);
    }

    @Test
    void add_sameKeyAgain_replacesTheEntry() {
        await(index.add(entry("k", "s", axis(0))));
        await(index.add(entry("k", "s", axis(1))));

        assertThat(keys(search("s", axis(1), 10))).containsExactly("k");
        assertThat(search("s", axis(1), 10).get(0).similarity()).isCloseTo(1.0f, within(1e-4f));
        assertThat(await(index.size())).isEqualTo(1);
    }

    @Test
    void search_ignoresEntriesExpiredAtTheGivenTime() {
        await(index.add(expiring("short", "s", axis(0), NOW + 1000)));
        await(index.add(expiring("long", "s", towards(axis(0), 1, 0.3f), NOW + HOUR)));

        assertThat(keys(await(index.search("s", axis(0), 10, NOW + 999)))).containsExactly("short", "long");
        assertThat(keys(await(index.search("s", axis(0), 10, NOW + 1000)))).containsExactly("long");
        assertThat(await(index.search("s", axis(0), 10, NOW + HOUR))).isEmpty();
    }

    @Test
    void sweepExpired_removesOnlyExpiredEntries() {
        await(index.add(expiring("a", "s", axis(0), NOW + 1000)));
        await(index.add(expiring("b", "s", axis(1), NOW + 2000)));
        await(index.add(expiring("c", "s", axis(2), NOW + HOUR)));

        assertThat(await(index.sweepExpired(NOW + 2000))).isEqualTo(2);

        assertThat(await(index.size())).isEqualTo(1);
        assertThat(keys(await(index.search("s", axis(2), 10, NOW)))).containsExactly("c");
        assertThat(await(index.sweepExpired(NOW + 2000))).isZero();
    }

    @Test
    void sweeper_runOnce_sweepsAtTheTickersWallTime() {
        await(index.add(expiring("a", "s", axis(0), NOW + 1000)));
        await(index.add(expiring("b", "s", axis(1), NOW + HOUR)));
        FakeTicker ticker = new FakeTicker(Instant.ofEpochMilli(NOW));
        try (Sweeper sweeper = Sweeper.start(index, ticker, Duration.ofHours(1))) {
            assertThat(await(sweeper.runOnce())).isZero();
            ticker.advance(Duration.ofSeconds(1));
            assertThat(await(sweeper.runOnce())).isEqualTo(1);
            assertThat(sweeper.swept()).isEqualTo(1);
        }
        assertThat(await(index.size())).isEqualTo(1);
    }

    @Test
    void delete_removesOnlyThatEntry() {
        await(index.add(entry("a", "s", axis(0))));
        await(index.add(entry("b", "s", axis(1))));

        await(index.delete("a"));
        await(index.delete("never-added"));

        assertThat(keys(search("s", axis(0), 10))).containsExactly("b");
    }

    @Test
    void search_labelledEntries_onlyForReadersHoldingEveryLabel() {
        float[] query = axis(0);
        await(index.add(labelled("both", "s", query, Set.of("hr", "finance"), "")));
        await(index.add(labelled("hr", "s", towards(query, 1, 0.2f), Set.of("hr"), "")));
        await(index.add(labelled("open", "s", towards(query, 1, 0.5f), Set.of(), "")));

        assertThat(keys(labelSearch(query, ReadableLabels.any()))).containsExactly("both", "hr", "open");
        assertThat(keys(labelSearch(query, ReadableLabels.holding(Set.of())))).containsExactly("open");
        assertThat(keys(labelSearch(query, ReadableLabels.holding(Set.of("hr"))))).containsExactly("hr", "open");
        assertThat(keys(labelSearch(query, ReadableLabels.holding(Set.of("finance"))))).containsExactly("open");
        assertThat(keys(labelSearch(query, ReadableLabels.holding(Set.of("finance", "hr", "legal")))))
                .containsExactly("both", "hr", "open");
        // Labels compare exactly, as the policy spells them.
        assertThat(keys(labelSearch(query, ReadableLabels.holding(Set.of("HR"))))).containsExactly("open");
    }

    @Test
    void search_unreadableNearerEntries_doNotCrowdOutAReadableOne() {
        float[] query = axis(0);
        for (int i = 0; i < 5; i++) {
            await(index.add(labelled("secret-" + i, "s", towards(query, 1 + i % 3, 0.05f * (i + 1)), Set.of("hr"), "")));
        }
        await(index.add(labelled("open", "s", towards(query, 1, 1.5f), Set.of(), "")));

        // k = 1: the filter runs inside the search, not on its k results.
        assertThat(keys(await(index.search("s", query, 1, NOW, ReadableLabels.holding(Set.of())))))
                .containsExactly("open");
    }

    @Test
    void purge_byUser_removesThatUsersEntriesOnly() {
        await(index.add(labelled("a1", "s", axis(0), Set.of(), "alice-digest")));
        await(index.add(labelled("a2", "s2", axis(1), Set.of("hr"), "alice-digest")));
        await(index.add(labelled("b", "s", axis(2), Set.of(), "bob-digest")));
        await(index.add(labelled("none", "s", axis(3), Set.of(), "")));

        assertThat(await(index.purge(IndexPurge.user("alice-digest")))).isEqualTo(2);

        assertThat(await(index.size())).isEqualTo(2);
        assertThat(keys(search("s", axis(2), 10))).containsExactlyInAnyOrder("b", "none");
    }

    private List<Neighbour> labelSearch(float[] query, ReadableLabels readable) {
        return await(index.search("s", query, 10, NOW, readable));
    }

    @Test
    void purge_byTenant_removesThatTenantsEntriesOnly() {
        addPurgeFixture();
        assertThat(await(index.purge(IndexPurge.tenant("acme")))).isEqualTo(2);
        assertThat(remainingKeys()).containsExactlyInAnyOrder("globex-m1", "globex-m2");
    }

    @Test
    void purge_byModelVersion_removesThatModelVersionsEntriesOnly() {
        addPurgeFixture();
        assertThat(await(index.purge(IndexPurge.modelVersion("m@2")))).isEqualTo(2);
        assertThat(remainingKeys()).containsExactlyInAnyOrder("acme-m1", "globex-m1");
    }

    @Test
    void purge_byTag_removesEntriesCarryingTheTag() {
        addPurgeFixture();
        assertThat(await(index.purge(IndexPurge.tag("doc:42")))).isEqualTo(2);
        assertThat(remainingKeys()).containsExactlyInAnyOrder("acme-m2", "globex-m2");
    }

    @Test
    void purge_byTenantAndModelVersion_removesEntriesMatchingBoth() {
        addPurgeFixture();
        IndexPurge both = new IndexPurge(false, java.util.Optional.of("acme"), java.util.Optional.of("m@2"),
                java.util.Optional.empty());
        assertThat(await(index.purge(both))).isEqualTo(1);
        assertThat(remainingKeys()).containsExactlyInAnyOrder("acme-m1", "globex-m1", "globex-m2");
    }

    @Test
    void purge_all_removesEverything() {
        addPurgeFixture();
        assertThat(await(index.purge(IndexPurge.everything()))).isEqualTo(4);
        assertThat(await(index.size())).isZero();
        assertThat(remainingKeys()).isEmpty();
    }

    @Test
    void purge_withoutAnyField_isRejected() {
        assertThatThrownBy(() -> new IndexPurge(false, java.util.Optional.empty(), java.util.Optional.empty(),
                java.util.Optional.empty())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void add_vectorOfAnotherDimensionOrNotNormalised_isRejected() {
        assertThatThrownBy(() -> index.add(entry("k", "s", TestVectors.normalise(new float[DIMENSION + 1]))))
                .isInstanceOf(IllegalArgumentException.class);
        float[] twice = axis(0);
        twice[0] = 2;
        assertThatThrownBy(() -> index.add(entry("k", "s", twice))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void concurrentAddsAndSearches_failNothingAndEveryAddIsFoundAfterwards() throws Exception {
        int writers = 4;
        int readers = 4;
        int perWriter = 50;
        ExecutorService pool = Executors.newFixedThreadPool(writers + readers);
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<IndexEntry> added = new ArrayList<>();
        Random seed = new Random(7);
        for (int i = 0; i < writers * perWriter; i++) {
            added.add(entry("c-" + i, "scope-" + (i % 5), TestVectors.random(seed, DIMENSION)));
        }
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<?>> done = new ArrayList<>();
        try {
            for (int w = 0; w < writers; w++) {
                int first = w * perWriter;
                done.add(CompletableFuture.runAsync(() -> {
                    awaitLatch(start);
                    for (int i = first; i < first + perWriter; i++) {
                        await(index.add(added.get(i)));
                    }
                }, pool));
            }
            for (int r = 0; r < readers; r++) {
                Random random = new Random(r);
                done.add(CompletableFuture.runAsync(() -> {
                    awaitLatch(start);
                    for (int i = 0; i < 100; i++) {
                        List<Neighbour> found = await(index.search("scope-" + random.nextInt(5),
                                TestVectors.random(random, DIMENSION), 5, NOW));
                        assertThat(found.size()).isLessThanOrEqualTo(5);
                    }
                }, pool));
            }
            start.countDown();
            for (CompletableFuture<?> f : done) {
                f.handle((v, t) -> t == null ? null : failures.add(t)).get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(failures).isEmpty();
        assertThat(await(index.size())).isEqualTo(writers * perWriter);
        // HNSW is approximate (k = 1 may return a neighbour instead of the vector itself), so ask for a
        // whole scope's worth: "found" is what this test is about, not the recall of the graph.
        int perScope = writers * perWriter / 5;
        for (IndexEntry e : added) {
            assertThat(keys(await(index.search(e.scope(), e.vector(), perScope, NOW)))).as(e.entryKey()).contains(e.entryKey());
        }
    }

    private void addPurgeFixture() {
        await(index.add(entry("acme-m1", "s", "acme", "m@1", Set.of("doc:42"), axis(0))));
        await(index.add(entry("acme-m2", "s", "acme", "m@2", Set.of("doc:7"), axis(1))));
        await(index.add(entry("globex-m1", "s", "globex", "m@1", Set.of("doc:42", "kb:1"), axis(2))));
        await(index.add(entry("globex-m2", "s", "globex", "m@2", Set.of(), axis(3))));
    }

    private List<String> remainingKeys() {
        return keys(search("s", axis(0), 10));
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
