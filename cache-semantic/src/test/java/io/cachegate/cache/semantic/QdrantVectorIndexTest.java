package io.cachegate.cache.semantic;

import static io.cachegate.cache.semantic.TestVectors.DIMENSION;
import static io.cachegate.cache.semantic.TestVectors.NOW;
import static io.cachegate.cache.semantic.TestVectors.axis;
import static io.cachegate.cache.semantic.TestVectors.entry;
import static org.assertj.core.api.Assertions.assertThat;

import io.qdrant.client.QdrantClient;
import io.qdrant.client.QdrantGrpcClient;
import io.qdrant.client.grpc.Collections.Distance;
import io.qdrant.client.grpc.Common.Condition;
import io.qdrant.client.grpc.Points.FieldType;
import io.qdrant.client.grpc.Points.SearchPoints;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Qdrant index against {@link FakeQdrantServer}: the real client over an in-process gRPC channel, so
 * this checks the requests the gateway sends and how it reads the answers, not Qdrant itself.
 */
class QdrantVectorIndexTest extends VectorIndexContractTest {

    private static final String COLLECTION = "cachegate";
    private FakeQdrantServer server;

    @Override
    protected VectorIndex newIndex() throws Exception {
        server = new FakeQdrantServer();
        return newIndex("test-model", DIMENSION);
    }

    private QdrantVectorIndex newIndex(String modelId, int dimension) {
        QdrantGrpcClient grpc = QdrantGrpcClient.newBuilder(server.channel(), true, false)
                .withApiKey("secret-key")
                .withTimeout(Duration.ofSeconds(5))
                .build();
        return QdrantVectorIndex.create(new QdrantClient(grpc),
                QdrantIndexOptions.of("unused", 6334, COLLECTION, modelId, dimension));
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    @Test
    void start_missingCollection_createsItWithCosineAndTheDimensionAndThePayloadIndexes() {
        await(((QdrantVectorIndex) index).ready());

        assertThat(server.creates).hasSize(1);
        var params = server.creates.get(0).getVectorsConfig().getParams();
        assertThat(params.getSize()).isEqualTo(DIMENSION);
        assertThat(params.getDistance()).isEqualTo(Distance.Cosine);
        var indexes = server.collections.get(COLLECTION).indexes;
        assertThat(indexes).containsEntry("scope", FieldType.FieldTypeKeyword)
                .containsEntry("tenant", FieldType.FieldTypeKeyword)
                .containsEntry("model_version", FieldType.FieldTypeKeyword)
                .containsEntry("tags", FieldType.FieldTypeKeyword)
                .containsEntry("model_id", FieldType.FieldTypeKeyword)
                .containsEntry("expires_at", FieldType.FieldTypeInteger);
    }

    @Test
    void start_existingCompatibleCollection_isReusedAndOnlyMissingIndexesAreCreated() {
        index.close();
        server.close();
        try {
            server = new FakeQdrantServer();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        server.preCreate(COLLECTION, DIMENSION, Distance.Cosine);
        server.collections.get(COLLECTION).indexes.put("scope", FieldType.FieldTypeKeyword);
        index = newIndex("test-model", DIMENSION);

        await(((QdrantVectorIndex) index).ready());

        assertThat(server.creates).isEmpty();
        assertThat(server.calls.stream().filter("CreateFieldIndex"::equals).count())
                .isEqualTo(QdrantVectorIndex.PAYLOAD_INDEXES.size() - 1);
    }

    @Test
    void start_collectionOfAnotherDimension_isRejectedNotDropped() throws Exception {
        index.close();
        server.close();
        server = new FakeQdrantServer();
        server.preCreate(COLLECTION, DIMENSION * 2, Distance.Cosine);
        index = newIndex("test-model", DIMENSION);

        assertThat(((QdrantVectorIndex) index).ready()).failsWithin(Duration.ofSeconds(5))
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(IncompatibleIndexException.class);
        assertThat(index.search("s", axis(0), 1, NOW)).failsWithin(Duration.ofSeconds(5))
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(IncompatibleIndexException.class);
        assertThat(server.collections.get(COLLECTION).params.getSize()).isEqualTo(DIMENSION * 2);
    }

    @Test
    void everyCall_sendsTheApiKey() {
        await(index.add(entry("k", "s", axis(0))));
        search("s", axis(0), 1);

        assertThat(server.apiKeys).isNotEmpty().allMatch("secret-key"::equals);
    }

    @Test
    void search_sendsScopeModelAndExpiryFilterAndAsksOnlyForTheFieldsItReads() {
        await(index.add(entry("k", "s", axis(0))));
        search("scope-x", axis(0), 3);

        SearchPoints sent = server.searches.get(server.searches.size() - 1);
        assertThat(sent.getLimit()).isEqualTo(3);
        assertThat(sent.getVectorCount()).isEqualTo(DIMENSION);
        assertThat(sent.getFilter().getMustList()).extracting(c -> c.getField().getKey())
                .containsExactlyInAnyOrder("scope", "model_id", "expires_at");
        Condition expiry = sent.getFilter().getMustList().stream()
                .filter(c -> c.getField().getKey().equals("expires_at")).findFirst().orElseThrow();
        assertThat(expiry.getField().getRange().getGt()).isEqualTo((double) NOW);
        assertThat(sent.getWithPayload().getInclude().getFieldsList())
                .containsExactlyInAnyOrder("entry_key", "text", "created_at", "expires_at");
    }

    @Test
    void add_sameKey_usesTheSamePointId() {
        await(index.add(entry("cg:v1:{acme}:m:abc", "s", axis(0))));
        await(index.add(entry("cg:v1:{acme}:m:abc", "s", axis(1))));

        assertThat(server.pointCount(COLLECTION)).isEqualTo(1);
        assertThat(QdrantVectorIndex.pointId("a")).isEqualTo(QdrantVectorIndex.pointId("a"))
                .isNotEqualTo(QdrantVectorIndex.pointId("b"));
    }

    @Test
    void search_anotherModelOfTheSameDimension_neverSeesTheseEntries() {
        await(index.add(entry("k", "s", axis(0))));
        try (QdrantVectorIndex other = newIndex("other-model", DIMENSION)) {
            assertThat(await(other.search("s", axis(0), 5, NOW))).isEmpty();
            assertThat(await(other.size())).isZero();
        }
    }

    @Test
    void qdrantDown_callsFailFastAndRecoverWhenItIsBack() {
        await(index.add(entry("k", "s", axis(0))));
        server.down = true;

        assertThat(index.search("s", axis(0), 1, NOW)).failsWithin(Duration.ofSeconds(5));

        server.down = false;
        assertThat(keys(search("s", axis(0), 1))).containsExactly("k");
    }

    @Test
    void options_apiKey_isRedactedInToString() {
        assertThat(QdrantIndexOptions.of("h", 6334, "c", "m", 4).withApiKey("hunter2").toString())
                .doesNotContain("hunter2").contains("***");
    }
}
