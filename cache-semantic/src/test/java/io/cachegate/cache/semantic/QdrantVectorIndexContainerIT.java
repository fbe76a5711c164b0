package io.cachegate.cache.semantic;

import static io.cachegate.cache.semantic.TestVectors.DIMENSION;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.qdrant.QdrantContainer;

/**
 * The index contract against a real Qdrant in Docker, with an API key. Skipped (not failed) where no Docker
 * engine runs; each test gets its own collection in one shared container.
 */
class QdrantVectorIndexContainerIT extends VectorIndexContractTest {

    // The server line the client 1.18 was released with.
    private static final String IMAGE = "qdrant/qdrant:v1.18.0";
    private static final String API_KEY = "it-secret";
    private static final AtomicInteger COLLECTIONS = new AtomicInteger();
    private static QdrantContainer qdrant;

    @BeforeAll
    static void startQdrant() {
        assumeTrue(DockerClientFactory.instance().isDockerAvailable(), "no Docker engine: Qdrant container tests skipped");
        qdrant = new QdrantContainer(IMAGE).withApiKey(API_KEY);
        qdrant.start();
    }

    @AfterAll
    static void stopQdrant() {
        if (qdrant != null) {
            qdrant.stop();
        }
    }

    @Override
    protected VectorIndex newIndex() {
        QdrantIndexOptions options = QdrantIndexOptions.of(qdrant.getHost(), qdrant.getGrpcPort(),
                "cachegate_it_" + COLLECTIONS.incrementAndGet(), "test-model", DIMENSION).withApiKey(API_KEY);
        QdrantVectorIndex index = QdrantVectorIndex.connect(options);
        await(index.ready());
        return index;
    }
}
