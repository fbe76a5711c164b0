package io.cachegate.cache.semantic;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.qdrant.client.grpc.Collections.CollectionConfig;
import io.qdrant.client.grpc.Collections.CollectionExists;
import io.qdrant.client.grpc.Collections.CollectionExistsRequest;
import io.qdrant.client.grpc.Collections.CollectionExistsResponse;
import io.qdrant.client.grpc.Collections.CollectionInfo;
import io.qdrant.client.grpc.Collections.CollectionOperationResponse;
import io.qdrant.client.grpc.Collections.CollectionParams;
import io.qdrant.client.grpc.Collections.CollectionStatus;
import io.qdrant.client.grpc.Collections.CreateCollection;
import io.qdrant.client.grpc.Collections.Distance;
import io.qdrant.client.grpc.Collections.GetCollectionInfoRequest;
import io.qdrant.client.grpc.Collections.GetCollectionInfoResponse;
import io.qdrant.client.grpc.Collections.PayloadSchemaInfo;
import io.qdrant.client.grpc.Collections.PayloadSchemaType;
import io.qdrant.client.grpc.Collections.VectorParams;
import io.qdrant.client.grpc.Collections.VectorsConfig;
import io.qdrant.client.grpc.CollectionsGrpc;
import io.qdrant.client.grpc.Common.Condition;
import io.qdrant.client.grpc.Common.FieldCondition;
import io.qdrant.client.grpc.Common.Filter;
import io.qdrant.client.grpc.Common.Match;
import io.qdrant.client.grpc.Common.PointId;
import io.qdrant.client.grpc.Common.Range;
import io.qdrant.client.grpc.JsonWithInt.Value;
import io.qdrant.client.grpc.Points.CountPoints;
import io.qdrant.client.grpc.Points.CountResponse;
import io.qdrant.client.grpc.Points.CountResult;
import io.qdrant.client.grpc.Points.CreateFieldIndexCollection;
import io.qdrant.client.grpc.Points.DeletePoints;
import io.qdrant.client.grpc.Points.FieldType;
import io.qdrant.client.grpc.Points.PointStruct;
import io.qdrant.client.grpc.Points.PointsOperationResponse;
import io.qdrant.client.grpc.Points.ScoredPoint;
import io.qdrant.client.grpc.Points.SearchPoints;
import io.qdrant.client.grpc.Points.SearchResponse;
import io.qdrant.client.grpc.Points.UpdateResult;
import io.qdrant.client.grpc.Points.UpdateStatus;
import io.qdrant.client.grpc.Points.UpsertPoints;
import io.qdrant.client.grpc.Points.Vector;
import io.qdrant.client.grpc.Points.WithPayloadSelector;
import io.qdrant.client.grpc.PointsGrpc;
import io.qdrant.client.grpc.QdrantGrpc;
import io.qdrant.client.grpc.QdrantOuterClass.HealthCheckReply;
import io.qdrant.client.grpc.QdrantOuterClass.HealthCheckRequest;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A tiny in-memory Qdrant behind the client's own generated gRPC service bases: brute-force cosine search,
 * keyword, any-of-array and range filters, ids. It is strict where the gateway could go wrong: it refuses
 * filters on fields without a payload index, unknown collections, vectors of the wrong size and updates
 * that do not wait. Every call is recorded so tests can check what went over the wire. Shared through this
 * module's test jar: {@link #listening()} also serves it on a loopback port, for tests that run whole gateways
 * configured with {@code store: qdrant}.
 */
public final class FakeQdrantServer implements AutoCloseable {

    record StoredPoint(PointId id, float[] vector, Map<String, Value> payload) {
    }

    static final class Collection {
        final VectorParams params;
        final Map<String, FieldType> indexes = new ConcurrentHashMap<>();
        final Map<PointId, StoredPoint> points = new LinkedHashMap<>();

        Collection(VectorParams params) {
            this.params = params;
        }
    }

    final Map<String, Collection> collections = new ConcurrentHashMap<>();
    final List<String> calls = new CopyOnWriteArrayList<>();
    final List<String> apiKeys = new CopyOnWriteArrayList<>();
    final List<SearchPoints> searches = new CopyOnWriteArrayList<>();
    final List<CreateCollection> creates = new CopyOnWriteArrayList<>();
    /** When set, every call fails with UNAVAILABLE (Qdrant down). */
    volatile boolean down;
    private final String name = InProcessServerBuilder.generateName();
    private final Server server;
    /** Null unless {@link #listening()}. */
    private final Server tcp;

    public FakeQdrantServer() throws IOException {
        this(false);
    }

    /** As {@link #FakeQdrantServer()}, also served on a free loopback port ({@link #port()}). */
    public static FakeQdrantServer listening() throws IOException {
        return new FakeQdrantServer(true);
    }

    private FakeQdrantServer(boolean listen) throws IOException {
        ServerInterceptor recordKey = new ServerInterceptor() {
            @Override
            public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
                                                               ServerCallHandler<Q, A> next) {
                String key = headers.get(Metadata.Key.of("api-key", Metadata.ASCII_STRING_MARSHALLER));
                apiKeys.add(key == null ? "" : key);
                calls.add(call.getMethodDescriptor().getBareMethodName());
                if (down) {
                    call.close(Status.UNAVAILABLE.withDescription("fake qdrant is down"), new Metadata());
                    return new ServerCall.Listener<>() {
                    };
                }
                return next.startCall(call, headers);
            }
        };
        server = services(InProcessServerBuilder.forName(name), recordKey).build().start();
        tcp = listen ? services(NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)),
                recordKey).build().start() : null;
    }

    private <B extends ServerBuilder<B>> B services(B builder, ServerInterceptor recordKey) {
        return builder.addService(ServerInterceptors.intercept(new Health(), recordKey))
                .addService(ServerInterceptors.intercept(new CollectionsService(), recordKey))
                .addService(ServerInterceptors.intercept(new PointsService(), recordKey));
    }

    /** The loopback port of a {@link #listening()} server. */
    public int port() {
        if (tcp == null) {
            throw new IllegalStateException("not listening: start it with FakeQdrantServer.listening()");
        }
        return tcp.getPort();
    }

    ManagedChannel channel() {
        return InProcessChannelBuilder.forName(name).directExecutor().build();
    }

    /** A collection that was there before the gateway started. */
    void preCreate(String collection, int size, Distance distance) {
        collections.put(collection, new Collection(VectorParams.newBuilder().setSize(size).setDistance(distance).build()));
    }

    /** Points in {@code collection}; 0 when it does not exist (yet). */
    public int pointCount(String collection) {
        Collection c = collections.get(collection);
        if (c == null) {
            return 0;
        }
        synchronized (c) {
            return c.points.size();
        }
    }

    @Override
    public void close() {
        server.shutdownNow();
        if (tcp != null) {
            tcp.shutdownNow();
        }
    }

    private final class Health extends QdrantGrpc.QdrantImplBase {
        @Override
        public void healthCheck(HealthCheckRequest request, StreamObserver<HealthCheckReply> response) {
            reply(response, HealthCheckReply.newBuilder().setTitle("fake qdrant").setVersion("1.18.0").build());
        }
    }

    private final class CollectionsService extends CollectionsGrpc.CollectionsImplBase {
        @Override
        public void collectionExists(CollectionExistsRequest request, StreamObserver<CollectionExistsResponse> response) {
            reply(response, CollectionExistsResponse.newBuilder().setResult(CollectionExists.newBuilder()
                    .setExists(collections.containsKey(request.getCollectionName()))).build());
        }

        @Override
        public void create(CreateCollection request, StreamObserver<CollectionOperationResponse> response) {
            creates.add(request);
            if (!request.getVectorsConfig().hasParams()) {
                response.onError(Status.INVALID_ARGUMENT.withDescription("no vector params").asRuntimeException());
                return;
            }
            if (collections.putIfAbsent(request.getCollectionName(), new Collection(request.getVectorsConfig().getParams())) != null) {
                response.onError(Status.ALREADY_EXISTS.withDescription("collection exists").asRuntimeException());
                return;
            }
            reply(response, CollectionOperationResponse.newBuilder().setResult(true).build());
        }

        @Override
        public void get(GetCollectionInfoRequest request, StreamObserver<GetCollectionInfoResponse> response) {
            Collection c = collections.get(request.getCollectionName());
            if (c == null) {
                response.onError(Status.NOT_FOUND.withDescription("no collection").asRuntimeException());
                return;
            }
            CollectionInfo.Builder info = CollectionInfo.newBuilder()
                    .setStatus(CollectionStatus.Green)
                    .setConfig(CollectionConfig.newBuilder().setParams(CollectionParams.newBuilder()
                            .setVectorsConfig(VectorsConfig.newBuilder().setParams(c.params))));
            c.indexes.forEach((field, type) -> info.putPayloadSchema(field, PayloadSchemaInfo.newBuilder()
                    .setDataType(type == FieldType.FieldTypeInteger ? PayloadSchemaType.Integer : PayloadSchemaType.Keyword).build()));
            reply(response, GetCollectionInfoResponse.newBuilder().setResult(info).build());
        }
    }

    private final class PointsService extends PointsGrpc.PointsImplBase {
        @Override
        public void createFieldIndex(CreateFieldIndexCollection request, StreamObserver<PointsOperationResponse> response) {
            withCollection(request.getCollectionName(), response, c -> {
                c.indexes.put(request.getFieldName(), request.getFieldType());
                return updated();
            });
        }

        // The client may still fill the deprecated flat `data` field instead of `dense`: read both.
        @SuppressWarnings("deprecation")
        @Override
        public void upsert(UpsertPoints request, StreamObserver<PointsOperationResponse> response) {
            if (!request.getWait()) {
                response.onError(Status.INVALID_ARGUMENT.withDescription("test server wants wait=true").asRuntimeException());
                return;
            }
            withCollection(request.getCollectionName(), response, c -> {
                for (PointStruct p : request.getPointsList()) {
                    Vector v = p.getVectors().getVector();
                    List<Float> data = v.hasDense() ? v.getDense().getDataList() : v.getDataList();
                    if (data.size() != c.params.getSize()) {
                        throw Status.INVALID_ARGUMENT.withDescription("wrong vector size " + data.size()).asRuntimeException();
                    }
                    float[] vector = new float[data.size()];
                    for (int i = 0; i < vector.length; i++) {
                        vector[i] = data.get(i);
                    }
                    c.points.put(p.getId(), new StoredPoint(p.getId(), vector, Map.copyOf(p.getPayloadMap())));
                }
                return updated();
            });
        }

        @Override
        public void search(SearchPoints request, StreamObserver<SearchResponse> response) {
            searches.add(request);
            withCollection(request.getCollectionName(), response, c -> {
                float[] query = new float[request.getVectorCount()];
                for (int i = 0; i < query.length; i++) {
                    query[i] = request.getVector(i);
                }
                checkIndexed(c, request.getFilter());
                List<ScoredPoint> hits = new ArrayList<>();
                for (StoredPoint p : c.points.values()) {
                    if (matches(request.getFilter(), p)) {
                        hits.add(ScoredPoint.newBuilder().setId(p.id()).setScore(cosine(query, p.vector()))
                                .putAllPayload(select(request.getWithPayload(), p.payload())).build());
                    }
                }
                hits.sort(Comparator.comparing(ScoredPoint::getScore).reversed());
                return SearchResponse.newBuilder()
                        .addAllResult(hits.subList(0, (int) Math.min(hits.size(), request.getLimit()))).build();
            });
        }

        @Override
        public void delete(DeletePoints request, StreamObserver<PointsOperationResponse> response) {
            if (!request.getWait()) {
                response.onError(Status.INVALID_ARGUMENT.withDescription("test server wants wait=true").asRuntimeException());
                return;
            }
            withCollection(request.getCollectionName(), response, c -> {
                if (request.getPoints().hasPoints()) {
                    request.getPoints().getPoints().getIdsList().forEach(c.points::remove);
                } else {
                    checkIndexed(c, request.getPoints().getFilter());
                    c.points.values().removeIf(p -> matches(request.getPoints().getFilter(), p));
                }
                return updated();
            });
        }

        @Override
        public void count(CountPoints request, StreamObserver<CountResponse> response) {
            withCollection(request.getCollectionName(), response, c -> {
                checkIndexed(c, request.getFilter());
                long n = c.points.values().stream().filter(p -> matches(request.getFilter(), p)).count();
                return CountResponse.newBuilder().setResult(CountResult.newBuilder().setCount(n)).build();
            });
        }
    }

    private <T> void withCollection(String collection, StreamObserver<T> response, Function<Collection, T> work) {
        Collection c = collections.get(collection);
        if (c == null) {
            response.onError(Status.NOT_FOUND.withDescription("Collection `" + collection + "` doesn't exist!").asRuntimeException());
            return;
        }
        T result;
        try {
            synchronized (c) {
                result = work.apply(c);
            }
        } catch (RuntimeException e) {
            response.onError(e instanceof io.grpc.StatusRuntimeException ? e
                    : Status.INTERNAL.withDescription(e.toString()).asRuntimeException());
            return;
        }
        reply(response, result);
    }

    private static PointsOperationResponse updated() {
        return PointsOperationResponse.newBuilder()
                .setResult(UpdateResult.newBuilder().setOperationId(1).setStatus(UpdateStatus.Completed)).build();
    }

    private static <T> void reply(StreamObserver<T> response, T value) {
        response.onNext(value);
        response.onCompleted();
    }

    private static void checkIndexed(Collection c, Filter filter) {
        for (List<Condition> conditions : List.of(filter.getMustList(), filter.getShouldList(), filter.getMustNotList())) {
            for (Condition condition : conditions) {
                if (condition.hasField() && !c.indexes.containsKey(condition.getField().getKey())) {
                    throw Status.FAILED_PRECONDITION.withDescription("no payload index on " + condition.getField().getKey())
                            .asRuntimeException();
                }
            }
        }
    }

    static boolean matches(Filter filter, StoredPoint p) {
        for (Condition c : filter.getMustList()) {
            if (!matches(c, p)) {
                return false;
            }
        }
        for (Condition c : filter.getMustNotList()) {
            if (matches(c, p)) {
                return false;
            }
        }
        return filter.getShouldCount() == 0 || filter.getShouldList().stream().anyMatch(c -> matches(c, p));
    }

    private static boolean matches(Condition condition, StoredPoint p) {
        if (condition.hasHasId()) {
            return condition.getHasId().getHasIdList().contains(p.id());
        }
        if (condition.hasFilter()) {
            return matches(condition.getFilter(), p);
        }
        if (condition.hasIsEmpty()) {
            Value value = p.payload().get(condition.getIsEmpty().getKey());
            return value == null || value.hasNullValue() || value.hasListValue() && value.getListValue().getValuesCount() == 0;
        }
        if (!condition.hasField()) {
            throw Status.UNIMPLEMENTED.withDescription("condition " + condition.getConditionOneOfCase()).asRuntimeException();
        }
        FieldCondition field = condition.getField();
        Value value = p.payload().get(field.getKey());
        if (value == null) {
            return false;
        }
        if (field.hasMatch()) {
            Match match = field.getMatch();
            if (match.hasExceptKeywords()) {
                // Qdrant: true when at least one of the values is outside the list.
                List<String> except = match.getExceptKeywords().getStringsList();
                List<Value> values = value.hasListValue() ? value.getListValue().getValuesList() : List.of(value);
                return values.stream().anyMatch(v -> !except.contains(v.getStringValue()));
            }
            if (!match.hasKeyword()) {
                throw Status.UNIMPLEMENTED.withDescription("match " + match.getMatchValueCase()).asRuntimeException();
            }
            if (value.hasListValue()) {
                return value.getListValue().getValuesList().stream().anyMatch(v -> v.getStringValue().equals(match.getKeyword()));
            }
            return value.hasStringValue() && value.getStringValue().equals(match.getKeyword());
        }
        if (field.hasRange()) {
            if (!value.hasIntegerValue() && !value.hasDoubleValue()) {
                return false;
            }
            double x = value.hasIntegerValue() ? value.getIntegerValue() : value.getDoubleValue();
            Range r = field.getRange();
            return (!r.hasGt() || x > r.getGt()) && (!r.hasGte() || x >= r.getGte())
                    && (!r.hasLt() || x < r.getLt()) && (!r.hasLte() || x <= r.getLte());
        }
        throw Status.UNIMPLEMENTED.withDescription("field condition on " + field.getKey()).asRuntimeException();
    }

    private static Map<String, Value> select(WithPayloadSelector selector, Map<String, Value> payload) {
        if (selector.hasInclude()) {
            Set<String> wanted = Set.copyOf(selector.getInclude().getFieldsList());
            Map<String, Value> out = new HashMap<>();
            payload.forEach((k, v) -> {
                if (wanted.contains(k)) {
                    out.put(k, v);
                }
            });
            return out;
        }
        return selector.hasEnable() && selector.getEnable() ? payload : Map.of();
    }

    private static float cosine(float[] a, float[] b) {
        double dot = 0;
        double na = 0;
        double nb = 0;
        for (int i = 0; i < a.length; i++) {
            dot += (double) a[i] * b[i];
            na += (double) a[i] * a[i];
            nb += (double) b[i] * b[i];
        }
        return (float) (dot / Math.sqrt(na * nb));
    }
}
