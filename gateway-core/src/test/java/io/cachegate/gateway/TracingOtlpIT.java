package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.chat;
import static io.cachegate.gateway.CacheCalls.header;
import static io.cachegate.gateway.CacheCalls.metric;
import static io.cachegate.gateway.CacheCalls.nonce;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.testkit.Poll;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The production export path end to end: the batch processor and the OTLP/HTTP exporter post protobuf to a
 * collector, here a receiver in the test that decodes each {@code ExportTraceServiceRequest} sent to
 * {@code /v1/traces}; and with {@code protocol: grpc}, a gRPC TraceService in the test (grpc-java, the
 * collector's generated service stub).
 */
class TracingOtlpIT {

    /** What the receiver got: each span with the service name of its resource. */
    private record Received(String service, Span span) {
    }

    @Test
    void spansArriveAtTheCollector_withTheirAttributesAndResource() throws Exception {
        List<Received> received = new CopyOnWriteArrayList<>();
        List<String> contentTypes = new CopyOnWriteArrayList<>();
        HttpServer collector = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        collector.createContext("/v1/traces", exchange -> receive(exchange, received, contentTypes));
        collector.start();
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults());
             Gateway gw = Gateway.start(GatewayFixture.policyOn(sim.baseUrl(), """
                     server: {shutdown_grace: 1s}
                     telemetry:
                       service_name: cachegate-otlp-test
                       sampling: 1.0
                       otlp: {endpoint: "http://127.0.0.1:%d", protocol: http, timeout: 5s, export_delay: 200ms,
                              max_queued_spans: 64}
                     """.formatted(collector.getAddress().getPort())))) {
            String body = chat("exported " + nonce());
            HttpResponse<String> miss = RawHttp.post(gw.port(), CHAT, body);
            String requestId = header(miss, "X-Request-Id");

            // The batch processor sends every export_delay: wait for it rather than close the gateway.
            assertThat(Poll.until(Duration.ofSeconds(30), () -> received.stream()
                    .anyMatch(r -> r.span().getKind() == Span.SpanKind.SPAN_KIND_CLIENT)
                    && received.stream().anyMatch(r -> ofRequest(r.span(), requestId))))
                    .as("the spans reached the collector").isTrue();
            // A batch has just gone: the next request's spans go in the next, export_delay later (the default 5 s
            // would hold them past this wait).
            String nextId = header(RawHttp.post(gw.port(), CHAT, chat("exported next " + nonce())), "X-Request-Id");
            assertThat(Poll.until(Duration.ofSeconds(3),
                    () -> received.stream().anyMatch(r -> ofRequest(r.span(), nextId))))
                    .as("the next batch within export_delay").isTrue();

            Span server = received.stream().map(Received::span)
                    .filter(s -> ofRequest(s, requestId))
                    .findFirst().orElseThrow();
            assertThat(server.getName()).isEqualTo("POST /v1/chat/completions");
            assertThat(server.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_SERVER);
            Map<String, AnyValue> attributes = attributes(server);
            assertThat(attributes.get("cachegate.cache.outcome").getStringValue()).isEqualTo("miss");
            assertThat(attributes.get("http.response.status_code").getIntValue()).isEqualTo(200);
            assertThat(attributes.get("gen_ai.request.model").getStringValue()).isEqualTo("llama-3.1-8b");
            Span client = received.stream().map(Received::span)
                    .filter(s -> s.getKind() == Span.SpanKind.SPAN_KIND_CLIENT).findFirst().orElseThrow();
            assertThat(client.getTraceId()).isEqualTo(server.getTraceId());
            assertThat(HexFormat.of().formatHex(client.getParentSpanId().toByteArray()))
                    .isEqualTo(HexFormat.of().formatHex(server.getSpanId().toByteArray()));
            assertThat(received).extracting(Received::service).containsOnly("cachegate-otlp-test");
            assertThat(contentTypes).contains("application/x-protobuf");
            assertThat(Poll.until(Duration.ofSeconds(10), () -> count(gw, "exported") >= 4)).as("counted").isTrue();
            assertThat(metric(gw, "cachegate_trace_spans_total", "outcome=\"dropped\"")).isZero();
        } finally {
            collector.stop(0);
        }
    }

    @Test
    void grpcProtocol_exportsToTheCollectorsTraceService() throws Exception {
        List<Span> received = new CopyOnWriteArrayList<>();
        Server collector = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
                .addService(new TraceServiceGrpc.TraceServiceImplBase() {
                    @Override
                    public void export(ExportTraceServiceRequest request,
                                       StreamObserver<ExportTraceServiceResponse> response) {
                        request.getResourceSpansList().forEach(r -> r.getScopeSpansList()
                                .forEach(scope -> received.addAll(scope.getSpansList())));
                        response.onNext(ExportTraceServiceResponse.getDefaultInstance());
                        response.onCompleted();
                    }
                }).build().start();
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults());
             Gateway gw = Gateway.start(GatewayFixture.policyOn(sim.baseUrl(), """
                     server: {io_threads: 1, shutdown_grace: 1s}
                     telemetry: {sampling: 1.0, otlp: {endpoint: "http://127.0.0.1:%d", protocol: grpc, timeout: 5s,
                             export_delay: 200ms}}
                     """.formatted(collector.getPort())))) {
            String requestId = header(RawHttp.post(gw.port(), CHAT, chat("over grpc " + nonce())), "X-Request-Id");

            assertThat(Poll.until(Duration.ofSeconds(30), () -> received.stream().anyMatch(s -> ofRequest(s, requestId))
                    && received.stream().anyMatch(s -> s.getKind() == Span.SpanKind.SPAN_KIND_CLIENT)))
                    .as("the server and upstream spans reached the gRPC collector").isTrue();
            assertThat(Poll.until(Duration.ofSeconds(10), () -> count(gw, "exported") >= 2)).as("counted").isTrue();
        } finally {
            collector.shutdownNow();
        }
    }

    @Test
    void exportRefusedByTheCollector_isCountedAsFailed() throws Exception {
        HttpServer collector = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        collector.createContext("/v1/traces", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(400, -1); // not retried by the exporter: the batch is lost
            exchange.close();
        });
        collector.start();
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults());
             Gateway gw = Gateway.start(GatewayFixture.policyOn(sim.baseUrl(), """
                     server: {io_threads: 1, shutdown_grace: 1s}
                     telemetry: {sampling: 1.0, otlp: {endpoint: "http://127.0.0.1:%d/", timeout: 5s,
                             export_delay: 200ms}}
                     """.formatted(collector.getAddress().getPort())))) {
            RawHttp.post(gw.port(), CHAT, chat("refused " + nonce()));

            assertThat(Poll.until(Duration.ofSeconds(30), () -> count(gw, "failed") >= 2))
                    .as("the server and client spans counted as failed").isTrue();
            assertThat(count(gw, "exported")).isZero();
        } finally {
            collector.stop(0);
        }
    }

    @Test
    void fullQueue_dropsSpansAndCountsThem_neverWaits() throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        HttpServer collector = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        collector.setExecutor(Executors.newCachedThreadPool());
        collector.createContext("/v1/traces", exchange -> {
            exchange.getRequestBody().readAllBytes();
            try {
                held.await(20, TimeUnit.SECONDS); // a stuck collector: the exporter's thread waits, nobody else
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        collector.start();
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults());
             Gateway gw = Gateway.start(GatewayFixture.policyOn(sim.baseUrl(), """
                     server: {io_threads: 1, shutdown_grace: 1s}
                     telemetry: {sampling: 1.0, otlp: {endpoint: "http://127.0.0.1:%d", timeout: 15s,
                                 max_queued_spans: 1}}
                     """.formatted(collector.getAddress().getPort())))) {
            // Two spans a request (server, upstream call); one in export, one queued, the rest have no room.
            for (int i = 0; i < 4; i++) {
                assertThat(RawHttp.post(gw.port(), CHAT, chat("crowded " + nonce())).statusCode()).isEqualTo(200);
            }

            assertThat(Poll.until(Duration.ofSeconds(20), () -> count(gw, "dropped") >= 4)).as("dropped").isTrue();
            held.countDown();
            assertThat(Poll.until(Duration.ofSeconds(20), () -> count(gw, "exported") >= 1)).as("exported").isTrue();
        } finally {
            held.countDown();
            collector.stop(0);
            ((ExecutorService) collector.getExecutor()).shutdownNow();
        }
    }

    private static double count(Gateway gw, String outcome) {
        try {
            return metric(gw, "cachegate_trace_spans_total", "outcome=\"" + outcome + "\"");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }


    private static void receive(HttpExchange exchange, List<Received> received, List<String> contentTypes)
            throws IOException {
        contentTypes.add(exchange.getRequestHeaders().getFirst("Content-Type"));
        ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(exchange.getRequestBody());
        for (ResourceSpans resource : request.getResourceSpansList()) {
            String service = resource.getResource().getAttributesList().stream()
                    .filter(a -> a.getKey().equals("service.name")).map(a -> a.getValue().getStringValue())
                    .findFirst().orElse("");
            for (ScopeSpans scope : resource.getScopeSpansList()) {
                scope.getSpansList().forEach(span -> received.add(new Received(service, span)));
            }
        }
        // An empty ExportTraceServiceResponse (zero bytes of protobuf): everything accepted.
        exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
        exchange.sendResponseHeaders(200, -1);
        exchange.close();
    }

    /** The server span of the request {@code id}: the one with that {@code cachegate.request_id}. */
    private static boolean ofRequest(Span span, String id) {
        AnyValue value = attributes(span).get("cachegate.request_id");
        return value != null && value.getStringValue().equals(id);
    }

    private static Map<String, AnyValue> attributes(Span span) {
        return span.getAttributesList().stream().collect(Collectors.toMap(KeyValue::getKey, KeyValue::getValue,
                (a, b) -> a));
    }
}
