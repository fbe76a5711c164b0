package io.cachegate.cache.semantic;

import static io.cachegate.cache.semantic.TestVectors.DIMENSION;
import static io.cachegate.cache.semantic.TestVectors.HOUR;
import static io.cachegate.cache.semantic.TestVectors.NOW;
import static io.cachegate.cache.semantic.TestVectors.axis;
import static io.cachegate.cache.semantic.TestVectors.entry;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
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

    private LuceneIndexOptions options() {
        return LuceneIndexOptions.of(dir.resolve("index"), "test-model", DIMENSION);
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

        // One over the bound: the oldest goes, and 1% slack more so the next adds do not evict one by one.
        assertThat(bounded.evictions()).isEqualTo(2);
        assertThat(await(index.size())).isEqualTo(99);
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
        assertThatThrownBy(() -> options().withRefreshInterval(java.time.Duration.ZERO)).hasMessageContaining("refreshInterval");
    }
}
