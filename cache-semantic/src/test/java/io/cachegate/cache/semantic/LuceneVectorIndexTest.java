package io.cachegate.cache.semantic;

import static io.cachegate.cache.semantic.TestVectors.DIMENSION;
import static io.cachegate.cache.semantic.TestVectors.HOUR;
import static io.cachegate.cache.semantic.TestVectors.NOW;
import static io.cachegate.cache.semantic.TestVectors.axis;
import static io.cachegate.cache.semantic.TestVectors.entry;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LuceneVectorIndexTest extends VectorIndexContractTest {

    @TempDir
    Path dir;

    @Override
    protected VectorIndex newIndex() throws Exception {
        return LuceneVectorIndex.open(options());
    }

    // Recent entries never age into the searcher on their own: the contract holds with adds served from them alone.
    private LuceneIndexOptions options() {
        return LuceneIndexOptions.of(dir.resolve("index"), "test-model", DIMENSION)
                .withRecentRefreshInterval(Duration.ofHours(1));
    }

    @Test
    void add_searchableAtOnce_andOnceOnlyAfterTheRefreshMovesItIntoLucene() {
        await(index.add(entry("a", "s", axis(0))));
        assertThat(keys(search("s", axis(0), 5))).containsExactly("a");

        assertThat(await(index.size())).isEqualTo(1);  // refreshes the searcher
        assertThat(keys(search("s", axis(0), 5))).containsExactly("a");
    }

    @Test
    void add_sameKeyIntoAnotherScope_hidesTheVersionStillInTheSearcher() {
        await(index.add(entry("a", "old", axis(0))));
        await(index.size());
        await(index.add(entry("a", "new", axis(1))));

        assertThat(search("old", axis(0), 5)).isEmpty();
        assertThat(keys(search("new", axis(1), 5))).containsExactly("a");
        assertThat(search("new", axis(1), 5).get(0).similarity()).isCloseTo(1f, within(1e-5f));
    }

    @Test
    void search_mergesRecentAndSearcherEntries_nearestFirstAndAtMostK() {
        await(index.add(entry("far", "s", TestVectors.normalise(axisMix(0, 1, 0.2f)))));
        await(index.add(entry("near", "s", TestVectors.normalise(axisMix(0, 1, 0.9f)))));
        await(index.size());
        await(index.add(entry("nearest", "s", axis(0))));
        await(index.add(entry("middle", "s", TestVectors.normalise(axisMix(0, 1, 0.5f)))));

        assertThat(keys(search("s", axis(0), 3))).containsExactly("nearest", "near", "middle");
    }

    @Test
    void search_scopeSpreadOverManySegments_findsWhatComparingEveryVectorFinds() {
        Random random = new Random(7);
        List<IndexEntry> inScope = new ArrayList<>();
        for (int segment = 0; segment < 6; segment++) {
            for (int i = 0; i < 80; i++) {
                IndexEntry e = entry("k" + segment + "-" + i, i % 4 == 0 ? "other" : "s", TestVectors.random(random, DIMENSION));
                await(index.add(e));
                if (e.scope().equals("s")) {
                    inScope.add(e);
                }
            }
            await(index.size());  // a refresh: one segment per round
        }

        for (int q = 0; q < 20; q++) {
            float[] query = TestVectors.random(random, DIMENSION);
            List<String> expected = inScope.stream()
                    .sorted((a, b) -> Float.compare(dot(b.vectorUnsafe(), query), dot(a.vectorUnsafe(), query)))
                    .limit(5).map(IndexEntry::entryKey).toList();
            assertThat(keys(search("s", query, 5))).containsExactlyElementsOf(expected);
        }
    }

    private static float dot(float[] a, float[] b) {
        float sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += a[i] * b[i];
        }
        return sum;
    }

    private static float[] axisMix(int first, int second, float weightOfFirst) {
        float[] v = new float[DIMENSION];
        v[first] = weightOfFirst;
        v[second] = 1 - weightOfFirst;
        return v;
    }

    @Test
    void add_recentEntriesFull_waitsForTheRefreshAndStaysSearchable() throws Exception {
        index.close();
        index = LuceneVectorIndex.open(options().withRecentCapacity(2));
        for (int i = 0; i < 5; i++) {
            await(index.add(entry("e" + i, "s", axis(i))));
        }
        assertThat(keys(search("s", axis(0), 10))).containsExactlyInAnyOrder("e0", "e1", "e2", "e3", "e4");
    }

    @Test
    void reopen_afterClose_keepsEntriesAndDeletions() throws Exception {
        await(index.add(entry("kept", "s", axis(0))));
        await(index.add(entry("deleted", "s", axis(1))));
        await(index.delete("deleted"));
        index.close();

        index = LuceneVectorIndex.open(options());

        assertThat(await(index.size())).isEqualTo(1);
        var found = search("s", axis(0), 10);
        assertThat(keys(found)).containsExactly("kept");
        assertThat(found.get(0).text()).isEqualTo("text of kept");
        assertThat(found.get(0).expiresAtMillis()).isEqualTo(NOW + HOUR);
    }

    @Test
    void reopen_withAnotherModelOrDimension_recreatesTheIndexEmpty() throws Exception {
        await(index.add(entry("old", "s", axis(0))));
        index.close();

        index = LuceneVectorIndex.open(LuceneIndexOptions.of(dir.resolve("index"), "other-model", DIMENSION));
        assertThat(await(index.size())).isZero();
        index.close();

        index = LuceneVectorIndex.open(LuceneIndexOptions.of(dir.resolve("index"), "other-model", 8));
        assertThat(await(index.size())).isZero();
        await(index.add(new IndexEntry("eight", "s", "t", "m", Set.of(), TestVectors.normalise(new float[] {1, 0, 0, 0, 0, 0, 0, 1}),
                "x", NOW, NOW + HOUR)));
        assertThat(await(index.size())).isEqualTo(1);
    }

    @Test
    void add_beyondMaxEntries_evictsTheOldestByCreationTime() throws Exception {
        index.close();
        LuceneVectorIndex bounded = LuceneVectorIndex.open(options().withMaxEntries(100));
        index = bounded;
        Random random = new Random(3);
        List<Integer> order = new ArrayList<>();
        for (int i = 1; i <= 100; i++) {
            order.add(i);
        }
        // Shuffled, so eviction must go by created_at, not by insertion order.
        Collections.shuffle(order, random);
        for (int i : order) {
            await(index.add(createdAt("e" + i, NOW + i, random)));
        }
        assertThat(bounded.evictions()).isZero();

        await(index.add(createdAt("newest", NOW + 1000, random)));
        assertThat(await(index.size())).isEqualTo(99);  // eviction runs when the searcher is refreshed

        // One over the bound: the oldest goes, and 1% slack more so the next adds do not evict one by one.
        assertThat(bounded.evictions()).isEqualTo(2);
        List<Neighbour> all = await(index.search("s", TestVectors.random(random, DIMENSION), 200, NOW));
        assertThat(keys(all)).hasSize(99).doesNotContain("e1", "e2").contains("e3", "e100", "newest");
    }

    private static IndexEntry createdAt(String key, long createdAt, Random random) {
        return new IndexEntry(key, "s", "t", "m", Set.of(), TestVectors.random(random, DIMENSION), "x", createdAt, NOW + HOUR);
    }

    @Test
    void operations_afterClose_failWithoutThrowing() {
        index.close();
        assertThat(index.search("s", axis(0), 1, NOW)).failsWithin(java.time.Duration.ofSeconds(1))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(IndexUnavailableException.class);
    }

    @Test
    void options_invalidValues_nameTheField() {
        assertThatThrownBy(() -> options().withMaxEntries(0)).hasMessageContaining("maxEntries");
        assertThatThrownBy(() -> options().withRefreshInterval(Duration.ZERO)).hasMessageContaining("refreshInterval");
        assertThatThrownBy(() -> options().withRecentCapacity(-1)).hasMessageContaining("recentCapacity");
        assertThatThrownBy(() -> options().withRecentRefreshInterval(Duration.ZERO)).hasMessageContaining("recentRefreshInterval");
    }
}
