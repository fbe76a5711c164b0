package io.cachegate.cache.semantic;

import static io.cachegate.cache.semantic.TestVectors.DIMENSION;
import static io.cachegate.cache.semantic.TestVectors.entry;
import static io.cachegate.cache.semantic.TestVectors.random;
import static io.cachegate.cache.semantic.TestVectors.towards;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The index contract with recent entries turned off (every add waits for a refresh of the Lucene searcher) and
 * every segment searched through its HNSW graph (the default searches these small scopes exactly).
 */
class LuceneVectorIndexWithoutRecentTest extends VectorIndexContractTest {

    @TempDir
    Path dir;

    @Override
    protected VectorIndex newIndex() throws Exception {
        return LuceneVectorIndex.open(LuceneIndexOptions.of(dir.resolve("index"), "test-model", DIMENSION).withRecentCapacity(0)
                .withExactSearchLimit(0));
    }

    // The segments' graph searches share the best scores found so far: one that cannot beat them stops early,
    // which must never cost the nearest entry of a later segment.
    @Test
    void search_overManySegmentGraphs_findsEachPlantedNeighbourWhicheverSegmentHoldsIt() {
        Random random = new Random(11);
        List<float[]> planted = new ArrayList<>();
        for (int batch = 0; batch < 6; batch++) {
            List<CompletableFuture<Void>> adds = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                adds.add(index.add(entry("noise-" + batch + "-" + i, "s", random(random, DIMENSION))));
            }
            float[] target = random(random, DIMENSION);
            planted.add(target);
            adds.add(index.add(entry("planted-" + batch, "s", target)));
            adds.forEach(VectorIndexContractTest::await);
        }

        for (int batch = 0; batch < planted.size(); batch++) {
            List<Neighbour> found = search("s", towards(planted.get(batch), batch % DIMENSION, 0.05f), 3);
            assertThat(found).first().extracting(Neighbour::entryKey).isEqualTo("planted-" + batch);
        }
    }
}
