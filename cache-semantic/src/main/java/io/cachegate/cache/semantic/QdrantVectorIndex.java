package io.cachegate.cache.semantic;

import static io.qdrant.client.ConditionFactory.isEmpty;
import static io.qdrant.client.ConditionFactory.matchExceptKeywords;
import static io.qdrant.client.ConditionFactory.matchKeyword;
import static io.qdrant.client.ConditionFactory.range;
import static io.qdrant.client.PointIdFactory.id;
import static io.qdrant.client.ValueFactory.list;
import static io.qdrant.client.ValueFactory.value;
import static io.qdrant.client.VectorsFactory.vectors;
import static io.qdrant.client.WithPayloadSelectorFactory.include;

import io.qdrant.client.QdrantClient;
import io.qdrant.client.QdrantGrpcClient;
import io.qdrant.client.grpc.Collections.CollectionInfo;
import io.qdrant.client.grpc.Collections.Distance;
import io.qdrant.client.grpc.Collections.VectorParams;
import io.qdrant.client.grpc.Common.Filter;
import io.qdrant.client.grpc.Common.Range;
import io.qdrant.client.grpc.JsonWithInt.Value;
import io.qdrant.client.grpc.Points.CreateFieldIndexCollection;
import io.qdrant.client.grpc.Points.FieldType;
import io.qdrant.client.grpc.Points.PointStruct;
import io.qdrant.client.grpc.Points.ScoredPoint;
import io.qdrant.client.grpc.Points.SearchPoints;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shared index: one Qdrant collection (cosine, the model's dimension) through the official gRPC
 * client. The collection and its payload indexes are created when missing; a collection of another
 * dimension or distance is rejected, never dropped, because other gateways may still be serving from it.
 * Points carry the embedding model id, so two models of one dimension never match each other's entries.
 * Futures complete on gRPC threads; nothing here ever waits on one.
 */
public final class QdrantVectorIndex implements VectorIndex {

    private static final Logger LOG = LoggerFactory.getLogger(QdrantVectorIndex.class);

    static final String ENTRY_KEY = "entry_key";
    static final String SCOPE = "scope";
    static final String TENANT = "tenant";
    static final String MODEL_VERSION = "model_version";
    static final String TAGS = "tags";
    static final String LABELS = "labels";
    static final String USER = "user";
    static final String MODEL_ID = "model_id";
    static final String TEXT = "text";
    static final String CREATED_AT = "created_at";
    static final String EXPIRES_AT = "expires_at";
    /** The payload indexes the filters need; the text is stored but never filtered on. */
    static final Map<String, FieldType> PAYLOAD_INDEXES = payloadIndexes();
    private static final List<String> RESULT_FIELDS = List.of(ENTRY_KEY, TEXT, CREATED_AT, EXPIRES_AT);
    // After a failed start (Qdrant down), the next call retries it, but not more often than this.
    private static final long RETRY_NANOS = Duration.ofSeconds(1).toNanos();

    private final QdrantClient client;
    private final String collection;
    private final String modelId;
    private final int dimension;
    private final Duration timeout;
    private final Object startLock = new Object();
    private CompletableFuture<Void> ready;  // guarded by startLock
    private long startedNanos;               // guarded by startLock

    private QdrantVectorIndex(QdrantClient client, QdrantIndexOptions options) {
        this.client = client;
        this.collection = options.collection();
        this.modelId = options.modelId();
        this.dimension = options.dimension();
        this.timeout = options.timeout();
        synchronized (startLock) {
            this.ready = ensureCollection();
            this.startedNanos = System.nanoTime();
        }
    }

    /**
     * Connects to Qdrant's gRPC port with the options' TLS, API key and per-call timeout, and starts creating
     * the collection in the background. Returns at once; until Qdrant answers, calls fail (a semantic miss).
     */
    public static QdrantVectorIndex connect(QdrantIndexOptions options) {
        // No version check at build time: it is a blocking health call, and start-up must not wait on Qdrant.
        QdrantGrpcClient.Builder grpc = QdrantGrpcClient.newBuilder(options.host(), options.port(), options.useTls(), false)
                .withTimeout(options.timeout());
        options.apiKey().ifPresent(grpc::withApiKey);
        return create(new QdrantClient(grpc.build()), options);
    }

    /** Uses {@code client} (and takes ownership of it); only the collection, model and timeout of {@code options} apply. */
    public static QdrantVectorIndex create(QdrantClient client, QdrantIndexOptions options) {
        return new QdrantVectorIndex(client, options);
    }

    @Override
    public String modelId() {
        return modelId;
    }

    @Override
    public int dimension() {
        return dimension;
    }

    /** Completes once the collection and its payload indexes exist and fit this model; fails if it does not fit. */
    public CompletableFuture<Void> ready() {
        synchronized (startLock) {
            boolean retry = ready.isCompletedExceptionally()
                    && !(cause(ready) instanceof IncompatibleIndexException)
                    && System.nanoTime() - startedNanos > RETRY_NANOS;
            if (retry) {
                ready = ensureCollection();
                startedNanos = System.nanoTime();
            }
            return ready;
        }
    }

    @Override
    public CompletableFuture<Void> add(IndexEntry entry) {
        Vectors.check(entry.vectorUnsafe(), dimension);
        List<Value> tags = new ArrayList<>(entry.tags().size());
        entry.tags().forEach(t -> tags.add(value(t)));
        Map<String, Value> payload = new HashMap<>();
        payload.put(ENTRY_KEY, value(entry.entryKey()));
        payload.put(SCOPE, value(entry.scope()));
        payload.put(TENANT, value(entry.tenant()));
        payload.put(MODEL_VERSION, value(entry.modelVersion()));
        payload.put(TAGS, list(tags));
        List<Value> labels = new ArrayList<>(entry.labels().size());
        entry.labels().forEach(l -> labels.add(value(l)));
        payload.put(LABELS, list(labels));
        if (!entry.userDigest().isEmpty()) {
            payload.put(USER, value(entry.userDigest()));
        }
        payload.put(MODEL_ID, value(modelId));
        payload.put(TEXT, value(entry.text()));
        payload.put(CREATED_AT, value(entry.createdAtMillis()));
        payload.put(EXPIRES_AT, value(entry.expiresAtMillis()));
        PointStruct point = PointStruct.newBuilder()
                .setId(id(pointId(entry.entryKey())))
                .setVectors(vectors(entry.vectorUnsafe()))
                .putAllPayload(payload)
                .build();
        // upsertAsync waits for the write to be applied, so a search right after sees it.
        return ready().thenCompose(v -> ListenableFutures.toCompletable(
                client.upsertAsync(collection, List.of(point), timeout))).thenApply(r -> null);
    }

    @Override
    public CompletableFuture<List<Neighbour>> search(String scope, float[] vector, int k, long nowMillis,
                                                     ReadableLabels readable) {
        Vectors.check(vector, dimension);
        if (k <= 0) {
            throw new IllegalArgumentException("k must be positive, was " + k);
        }
        SearchPoints.Builder request = SearchPoints.newBuilder()
                .setCollectionName(collection)
                .setLimit(k)
                .setFilter(searchFilter(scope, nowMillis, readable))
                .setWithPayload(include(RESULT_FIELDS));
        for (float f : vector) {
            request.addVector(f);
        }
        SearchPoints built = request.build();
        return ready().thenCompose(v -> ListenableFutures.toCompletable(client.searchAsync(built, timeout)))
                .thenApply(QdrantVectorIndex::toNeighbours);
    }

    Filter searchFilter(String scope, long nowMillis, ReadableLabels readable) {
        Filter.Builder filter = Filter.newBuilder()
                .addMust(matchKeyword(SCOPE, scope))
                .addMust(matchKeyword(MODEL_ID, modelId))
                .addMust(range(EXPIRES_AT, Range.newBuilder().setGt(nowMillis).build()));
        if (!readable.unrestricted()) {
            if (readable.held().isEmpty()) {
                filter.addMust(isEmpty(LABELS)); // no labels held: unlabelled entries (or points from before labels)
            } else {
                // "except" matches a point with at least one label outside the list: those are left out.
                filter.addMustNot(matchExceptKeywords(LABELS, List.copyOf(readable.held())));
            }
        }
        return filter.build();
    }

    private static List<Neighbour> toNeighbours(List<ScoredPoint> points) {
        List<Neighbour> out = new ArrayList<>(points.size());
        for (ScoredPoint p : points) {
            Map<String, Value> payload = p.getPayloadMap();
            Value key = payload.get(ENTRY_KEY);
            if (key == null || key.getStringValue().isEmpty()) {
                continue;  // not one of ours (someone else's point in a shared collection)
            }
            out.add(new Neighbour(key.getStringValue(), p.getScore(),
                    payload.getOrDefault(TEXT, value("")).getStringValue(),
                    payload.getOrDefault(CREATED_AT, value(0L)).getIntegerValue(),
                    payload.getOrDefault(EXPIRES_AT, value(0L)).getIntegerValue()));
        }
        // Qdrant answers best first already; sorting again costs nothing at k and makes it a contract of ours.
        out.sort(Comparator.comparing(Neighbour::similarity).reversed());
        return out;
    }

    @Override
    public CompletableFuture<Void> delete(String entryKey) {
        return ready().thenCompose(v -> ListenableFutures.toCompletable(
                client.deleteAsync(collection, List.of(id(pointId(entryKey))), timeout))).thenApply(r -> null);
    }

    @Override
    public CompletableFuture<Long> purge(IndexPurge purge) {
        return deleteMatching(purgeFilter(purge));
    }

    @Override
    public CompletableFuture<Long> sweepExpired(long nowMillis) {
        return deleteMatching(Filter.newBuilder()
                .addMust(range(EXPIRES_AT, Range.newBuilder().setLte(nowMillis).build())).build());
    }

    @Override
    public CompletableFuture<Long> size() {
        Filter ours = Filter.newBuilder().addMust(matchKeyword(MODEL_ID, modelId)).build();
        return ready().thenCompose(v -> ListenableFutures.toCompletable(client.countAsync(collection, ours, true, timeout)));
    }

    // Count, then delete by the same filter: exact unless entries are added in between.
    private CompletableFuture<Long> deleteMatching(Filter filter) {
        return ready()
                .thenCompose(v -> ListenableFutures.toCompletable(client.countAsync(collection, filter, true, timeout)))
                .thenCompose(count -> count == 0 ? CompletableFuture.completedFuture(0L)
                        : ListenableFutures.toCompletable(client.deleteAsync(collection, filter, timeout)).thenApply(r -> count));
    }

    static Filter purgeFilter(IndexPurge purge) {
        Filter.Builder filter = Filter.newBuilder();
        if (purge.all()) {
            return filter.build();  // no condition: every point
        }
        purge.tenant().ifPresent(t -> filter.addMust(matchKeyword(TENANT, t)));
        purge.modelVersion().ifPresent(m -> filter.addMust(matchKeyword(MODEL_VERSION, m)));
        purge.tag().ifPresent(t -> filter.addMust(matchKeyword(TAGS, t)));  // matches any element of the array
        purge.user().ifPresent(u -> filter.addMust(matchKeyword(USER, u)));
        return filter.build();
    }

    /** A name-based UUID of the entry key, so adding the same key again overwrites its point. */
    static UUID pointId(String entryKey) {
        return UUID.nameUUIDFromBytes(("cachegate:" + entryKey).getBytes(StandardCharsets.UTF_8));
    }

    private CompletableFuture<Void> ensureCollection() {
        return ListenableFutures.toCompletable(client.collectionExistsAsync(collection, timeout))
                .thenCompose(exists -> exists ? collectionInfo() : createCollection())
                .thenCompose(this::createMissingIndexes)
                .whenComplete((v, failure) -> {
                    if (failure != null) {
                        LOG.warn("Qdrant collection {} is not usable: {}", collection, cause(failure).toString());
                    }
                });
    }

    private CompletableFuture<CollectionInfo> createCollection() {
        VectorParams params = VectorParams.newBuilder().setSize(dimension).setDistance(Distance.Cosine).build();
        return ListenableFutures.toCompletable(client.createCollectionAsync(collection, params, timeout))
                // Another gateway may have created it in between: whatever exists now is checked the same way.
                .handle((r, failure) -> null)
                .thenCompose(v -> collectionInfo());
    }

    private CompletableFuture<CollectionInfo> collectionInfo() {
        return ListenableFutures.toCompletable(client.getCollectionInfoAsync(collection, timeout)).thenApply(info -> {
            var vectors = info.getConfig().getParams().getVectorsConfig();
            if (!vectors.hasParams()) {
                throw new IncompatibleIndexException("Qdrant collection " + collection
                        + " has named vectors; cachegate needs one unnamed vector");
            }
            VectorParams params = vectors.getParams();
            if (params.getSize() != dimension || params.getDistance() != Distance.Cosine) {
                throw new IncompatibleIndexException("Qdrant collection " + collection + " holds " + params.getDistance()
                        + " vectors of dimension " + params.getSize() + ", model " + modelId + " needs Cosine of "
                        + dimension + ": use another collection or drop this one");
            }
            return info;
        });
    }

    private CompletableFuture<Void> createMissingIndexes(CollectionInfo info) {
        Set<String> present = info.getPayloadSchemaMap().keySet();
        CompletableFuture<?>[] created = PAYLOAD_INDEXES.entrySet().stream()
                .filter(e -> !present.contains(e.getKey()))
                .map(e -> ListenableFutures.toCompletable(client.createPayloadIndexAsync(
                        CreateFieldIndexCollection.newBuilder()
                                .setCollectionName(collection)
                                .setFieldName(e.getKey())
                                .setFieldType(e.getValue())
                                .setWait(true)
                                .build(), timeout)))
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(created);
    }

    private static Map<String, FieldType> payloadIndexes() {
        Map<String, FieldType> fields = new LinkedHashMap<>();
        for (String keyword : List.of(SCOPE, MODEL_ID, TENANT, MODEL_VERSION, TAGS, LABELS, USER)) {
            fields.put(keyword, FieldType.FieldTypeKeyword);
        }
        fields.put(EXPIRES_AT, FieldType.FieldTypeInteger);
        return Map.copyOf(fields);
    }

    private static Throwable cause(CompletableFuture<?> failed) {
        return failed.handle((v, t) -> cause(t)).getNow(null);
    }

    private static Throwable cause(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    /** Closes the gRPC client and its channel (waits up to a few seconds for calls in flight). */
    @Override
    public void close() {
        client.close();
    }
}
