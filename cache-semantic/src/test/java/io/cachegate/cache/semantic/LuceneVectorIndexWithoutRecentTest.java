package io.cachegate.cache.semantic;

import static io.cachegate.cache.semantic.TestVectors.DIMENSION;

import java.nio.file.Path;
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
}
