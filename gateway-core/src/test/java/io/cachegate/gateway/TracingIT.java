package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.chat;
import static io.cachegate.gateway.CacheCalls.header;
import static io.cachegate.gateway.CacheCalls.metric;
import static io.cachegate.gateway.CacheCalls.nonce;
import static io.cachegate.gateway.CacheCalls.quote;
import static io.cachegate.gateway.CacheCalls.xCache;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.gateway.telemetry.trace.SpanAttributes;
import io.cachegate.testkit.Poll;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Traces through the gateway, exported to the SDK's in-memory exporter: the server span and its children for a miss,
 * an exact hit, a semantic hit (the bundled ONNX model), a coalesced follower, a queued and a rejected request; the
 * client's {@code traceparent} honoured and the backend's naming the upstream call; hits linked to their origin.
 */
class TracingIT {

    private static final AttributeKey<String> GEN_AI_OPERATION = AttributeKey.stringKey("gen_ai.operation.name");
    private static final AttributeKey<String> GEN_AI_REQUEST_MODEL = AttributeKey.stringKey("gen_ai.request.model");
    private static final AttributeKey<String> GEN_AI_RESPONSE_MODEL = AttributeKey.stringKey("gen_ai.response.model");
    private static final AttributeKey<Long> INPUT_TOKENS = AttributeKey.longKey("gen_ai.usage.input_tokens");
    private static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");

    private static final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private static RecordingUpstream upstream;
    private static Gateway gateway;
    private static Path indexDir;
    private static Path logDir;

    private static Path accessLog() {
        return logDir.resolve("access.log");
    }

    @BeforeAll
    static void start() throws Exception {
        upstream = new RecordingUpstream();
        indexDir = Files.createTempDirectory("cachegate-tracing-it");
        logDir = Files.createTempDirectory("cachegate-tracing-log");
        gateway = Gateway.startTraced(TestPolicies.parse("""
                server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 2, shutdown_grace: 2s}
                backends:
                  - name: main
                    urls: ["%s"]
                    model_version: "llama@v1"
                    timeouts: {connect: 1s, first_byte: 30s, idle: 30s, total: 60s}
                telemetry: {service_name: cachegate-test, sampling: 1.0}
                log: {access: file, file: "%s"}
                cache:
                  exact: {store: memory, ttl: 1h}
                  semantic: {enabled: true, path: "%s", ttl: 1h, max_error_rate: 0}
                routes:
                  - match: {model: "qwen2.5-0.5b"}
                    cache: {semantic: true}
                  - match: {model: "*"}
                    cache: {semantic: false}
                """.formatted(upstream.baseUrl(), accessLog().toString().replace('\\', '/'),
                indexDir.toString().replace('\\', '/'))), spans);
    }

    @AfterAll
    static void stop() throws Exception {
        Closing.all(gateway, upstream);
    }

    @Test
    void miss_serverSpanWithUpstreamClientChild_andTheBackendSeesTheClientSpansTraceparent() throws Exception {
        String prompt = "miss " + nonce();

        HttpResponse<String> miss = RawHttp.post(gateway.port(), CHAT, chat(prompt));

        assertThat(xCache(miss)).isEqualTo("MISS");
        SpanData server = serverSpan(miss);
        assertThat(server.getName()).isEqualTo("POST /v1/chat/completions");
        assertThat(server.getKind()).isEqualTo(SpanKind.SERVER);
        assertThat(server.getParentSpanContext().isValid()).as("no traceparent from the client: a root").isFalse();
        assertThat(server.getAttributes().get(AttributeKey.stringKey("http.request.method"))).isEqualTo("POST");
        assertThat(server.getAttributes().get(AttributeKey.stringKey("url.path"))).isEqualTo(CHAT);
        assertThat(server.getAttributes().get(STATUS)).isEqualTo(200);
        assertThat(server.getAttributes().get(AttributeKey.stringKey("server.address"))).isEqualTo("127.0.0.1");
        assertThat(server.getAttributes().get(GEN_AI_OPERATION)).isEqualTo("chat");
        assertThat(server.getAttributes().get(GEN_AI_REQUEST_MODEL)).isEqualTo("llama-3.1-8b");
        assertThat(server.getAttributes().get(GEN_AI_RESPONSE_MODEL)).isEqualTo("llama-3.1-8b");
        assertThat(server.getAttributes().get(SpanAttributes.CACHE_OUTCOME)).isEqualTo("miss");
        assertThat(server.getAttributes().get(INPUT_TOKENS)).as("the answer's usage").isEqualTo(7);
        assertThat(server.getAttributes().get(AttributeKey.longKey("gen_ai.usage.output_tokens"))).isEqualTo(3);
        assertThat(server.getAttributes().get(SpanAttributes.TENANT)).isEqualTo("default");
        assertThat(server.getAttributes().get(SpanAttributes.ROUTE)).isEqualTo("1");
        assertThat(server.getAttributes().get(SpanAttributes.BACKEND)).isEqualTo("main");
        assertThat(server.getAttributes().get(SpanAttributes.REQUEST_ID)).isEqualTo(header(miss, "X-Request-Id"));
        assertThat(server.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);

        SpanData call = child(server, "chat llama-3.1-8b");
        assertThat(call.getKind()).isEqualTo(SpanKind.CLIENT);
        assertThat(call.getAttributes().get(STATUS)).isEqualTo(200);
        assertThat(call.getAttributes().get(GEN_AI_REQUEST_MODEL)).isEqualTo("llama-3.1-8b");
        assertThat(call.getAttributes().get(AttributeKey.longKey("server.port")))
                .isEqualTo(upstream.baseUrl().getPort());
        assertThat(call.getEvents()).extracting(e -> e.getName()).containsExactly("first_byte");
        assertThat(call.getEndEpochNanos()).isLessThanOrEqualTo(server.getEndEpochNanos() + 1_000_000);
        // Flags: sampled (01), and the trace id is random (02, W3C trace context level 2) as the SDK made it.
        assertThat(upstream.request(prompt).traceparent())
                .isEqualTo("00-" + server.getTraceId() + "-" + call.getSpanId() + "-03");
        assertThat(child(server, "cache.exact.lookup").getStartEpochNanos())
                .isBetween(server.getStartEpochNanos(), call.getStartEpochNanos());
        assertThat(call.getAttributes().get(AttributeKey.stringKey("server.address"))).isEqualTo("127.0.0.1");
        assertThat(children(server)).extracting(SpanData::getName)
                .as("an instant replica choice has no span of its own").doesNotContain("replica.choice");
        assertThat(child(server, "cache.write").getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
        String id = header(miss, "X-Request-Id");
        assertThat(Poll.until(Duration.ofSeconds(20), () -> logLine(id).isPresent())).as("logged").isTrue();
        assertThat(logLine(id).get().path("trace_id").asText()).as("the access log names the trace")
                .isEqualTo(server.getTraceId());
    }

    private static Optional<com.fasterxml.jackson.databind.JsonNode> logLine(String requestId) {
        try {
            return Files.readAllLines(accessLog()).stream().map(CacheCalls::json)
                    .filter(line -> requestId.equals(line.path("request_id").asText())).findFirst();
        } catch (java.io.IOException e) {
            return Optional.empty();
        }
    }

    @Test
    void exactHit_linksToTheTraceOfTheRequestThatGeneratedIt() throws Exception {
        String body = chat("repeat " + nonce());
        HttpResponse<String> origin = RawHttp.post(gateway.port(), CHAT, body);
        SpanData originSpan = serverSpan(origin);
        child(originSpan, "cache.write"); // stored

        HttpResponse<String> hit = RawHttp.post(gateway.port(), CHAT, body);

        assertThat(xCache(hit)).isEqualTo("HIT");
        SpanData server = serverSpan(hit);
        assertThat(server.getTraceId()).isNotEqualTo(originSpan.getTraceId());
        assertThat(server.getAttributes().get(SpanAttributes.CACHE_OUTCOME)).isEqualTo("hit");
        assertThat(server.getAttributes().get(SpanAttributes.CACHE_LAYER)).isEqualTo("exact");
        assertThat(server.getAttributes().get(SpanAttributes.ORIGIN_REQUEST_ID))
                .isEqualTo(header(origin, "X-Request-Id"));
        assertThat(server.getAttributes().get(INPUT_TOKENS)).as("the stored answer's usage").isEqualTo(7);
        assertThat(server.getAttributes().get(GEN_AI_RESPONSE_MODEL)).isEqualTo("llama-3.1-8b");
        assertThat(server.getLinks()).extracting(TracingIT::linked)
                .containsExactly(originSpan.getTraceId() + "/" + originSpan.getSpanId());
        assertThat(children(server)).extracting(SpanData::getName).containsExactly("cache.exact.lookup");
    }

    @Test
    void semanticHit_lookupSpanWithEmbedAndSearch_andLinkToOrigin() throws Exception {
        String system = "support bot " + nonce();
        HttpResponse<String> first = RawHttp.post(gateway.port(), CHAT, qwen(system, "How do I reset my password?"));
        SpanData firstSpan = serverSpan(first);
        assertThat(child(firstSpan, "cache.semantic.lookup").getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
        child(firstSpan, "cache.semantic.write"); // indexed

        HttpResponse<String> paraphrase = RawHttp.post(gateway.port(), CHAT,
                qwen(system, "How can I reset my password?"));

        assertThat(header(paraphrase, "X-Cache-Layer")).isEqualTo("semantic");
        SpanData server = serverSpan(paraphrase);
        assertThat(server.getAttributes().get(SpanAttributes.CACHE_LAYER)).isEqualTo("semantic");
        assertThat(server.getAttributes().get(SpanAttributes.SIMILARITY)).isBetween(0.9, 1.0);
        assertThat(server.getLinks()).extracting(TracingIT::linked)
                .containsExactly(firstSpan.getTraceId() + "/" + firstSpan.getSpanId());
        SpanData lookup = child(server, "cache.semantic.lookup");
        assertThat(lookup.getAttributes().get(SpanAttributes.SIMILARITY))
                .isEqualTo(server.getAttributes().get(SpanAttributes.SIMILARITY));
        SpanData embed = child(lookup, "cache.semantic.embed");
        SpanData search = child(lookup, "cache.semantic.search");
        assertThat(embed.getEndEpochNanos()).isGreaterThan(embed.getStartEpochNanos());
        assertThat(search.getStartEpochNanos()).isGreaterThanOrEqualTo(embed.getEndEpochNanos());
        assertThat(search.getEndEpochNanos()).isLessThanOrEqualTo(lookup.getEndEpochNanos());
    }

    @Test
    void clientTraceparent_isTheServerSpansParent_andTheBackendGetsTheUpstreamSpan() throws Exception {
        String traceId = hex(16);
        String clientSpan = hex(8);
        String prompt = "traced by the client " + nonce();

        HttpResponse<String> r = RawHttp.post(gateway.port(), CHAT, chat(prompt),
                "traceparent", "00-" + traceId + "-" + clientSpan + "-01", "tracestate", "vendor=abc");

        SpanData server = serverSpan(r);
        assertThat(server.getTraceId()).isEqualTo(traceId);
        assertThat(server.getParentSpanId()).isEqualTo(clientSpan);
        assertThat(server.getParentSpanContext().isRemote()).isTrue();
        SpanData call = child(server, "chat llama-3.1-8b");
        RecordingUpstream.Received seen = upstream.request(prompt);
        assertThat(seen.traceparent()).isEqualTo("00-" + traceId + "-" + call.getSpanId() + "-01");
        assertThat(seen.tracestate()).isEqualTo("vendor=abc");
    }

    @Test
    void coalescedFollower_waitSpanAndLinkToTheLeader() throws Exception {
        String body = chat("hold coalesced " + nonce());
        CompletableFuture<HttpResponse<String>> leader = CompletableFuture.supplyAsync(() -> post(body));
        assertThat(Poll.until(Duration.ofSeconds(20), () -> upstream.received().stream()
                .anyMatch(r -> body.contains(r.prompt())))).as("the leader reached the backend").isTrue();
        CompletableFuture<HttpResponse<String>> follower = CompletableFuture.supplyAsync(() -> post(body));
        // Coalescing is counted when a follower is answered: wait until both are in flight, and a moment for the
        // follower to reach the coalescing stage (a follower that came late would be a HIT, and fail below).
        assertThat(Poll.until(Duration.ofSeconds(20), () -> metricNow("cachegate_requests_inflight") >= 2))
                .as("the second request is in").isTrue();
        Thread.sleep(500);

        upstream.release();

        SpanData leaderSpan = serverSpan(leader.get(30, TimeUnit.SECONDS));
        SpanData server = serverSpan(follower.get(30, TimeUnit.SECONDS));
        assertThat(server.getAttributes().get(SpanAttributes.REASON)).isEqualTo("coalesced");
        assertThat(server.getLinks()).extracting(TracingIT::linked)
                .containsExactly(leaderSpan.getTraceId() + "/" + leaderSpan.getSpanId());
        assertThat(child(server, "cache.coalesce.wait").getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
        assertThat(children(server)).extracting(SpanData::getKind).doesNotContain(SpanKind.CLIENT);
    }

    @Test
    void queuedAndRejected_queueSpanAndA429WithItsReason() throws Exception {
        InMemorySpanExporter queueSpans = InMemorySpanExporter.create();
        try (RecordingUpstream slow = new RecordingUpstream();
             Gateway gw = Gateway.startTraced(TestPolicies.parse("""
                     server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 2, shutdown_grace: 1s}
                     backends:
                       - name: main
                         urls: ["%s"]
                         model_version: "llama@v1"
                         max_concurrency: 1
                         timeouts: {connect: 1s, first_byte: 30s, idle: 30s, total: 60s}
                     classes:
                       interactive: {priority: 0, max_queue_time: 30s, max_queue_depth: 1}
                     admission: {enabled: true}
                     telemetry: {sampling: 1.0}
                     """.formatted(slow.baseUrl())), queueSpans)) {
            CompletableFuture<HttpResponse<String>> running = CompletableFuture.supplyAsync(
                    () -> post(gw, chat("hold the replica " + nonce())));
            assertThat(Poll.until(Duration.ofSeconds(20), () -> slow.received().size() == 1)).isTrue();
            CompletableFuture<HttpResponse<String>> queued = CompletableFuture.supplyAsync(
                    () -> post(gw, chat("queued " + nonce())));
            assertThat(Poll.until(Duration.ofSeconds(20), () -> metricNow(gw, "cachegate_queue_depth") == 1))
                    .as("queued").isTrue();

            HttpResponse<String> rejected = RawHttp.post(gw.port(), CHAT, chat("turned away " + nonce()));
            slow.release();

            assertThat(rejected.statusCode()).isEqualTo(429);
            SpanData refused = serverSpan(queueSpans, rejected);
            assertThat(refused.getAttributes().get(STATUS)).isEqualTo(429);
            assertThat(refused.getAttributes().get(SpanAttributes.REASON)).isEqualTo("queue_full");
            assertThat(refused.getAttributes().get(SpanAttributes.CLASS)).isEqualTo("interactive");
            assertThat(refused.getAttributes().get(SpanAttributes.CACHE_OUTCOME)).isEqualTo("error");
            assertThat(refused.getStatus().getStatusCode()).as("a 4xx is the client's, not ours").isEqualTo(StatusCode.UNSET);
            assertThat(running.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            SpanData waited = serverSpan(queueSpans, queued.get(30, TimeUnit.SECONDS));
            SpanData queue = child(queueSpans, waited, "admission.queue");
            assertThat(queue.getAttributes().get(SpanAttributes.CLASS)).isEqualTo("interactive");
            assertThat(queue.getEndEpochNanos() - queue.getStartEpochNanos()).isPositive();
            assertThat(child(queueSpans, waited, "chat llama-3.1-8b").getStartEpochNanos())
                    .isGreaterThanOrEqualTo(queue.getEndEpochNanos());
        }
    }

    @Test
    void tracingOff_theClientsTraceparentPassesThroughUnchanged() throws Exception {
        try (RecordingUpstream backend = new RecordingUpstream();
             Gateway gw = Gateway.start(TestPolicies.parse(untraced(backend, "")))) {
            String traceparent = "00-" + hex(16) + "-" + hex(8) + "-01";

            RawHttp.post(gw.port(), CHAT, chat("with traceparent " + nonce()), "traceparent", traceparent);
            RawHttp.post(gw.port(), CHAT, chat("without traceparent " + nonce()));

            assertThat(backend.request("with traceparent").traceparent()).isEqualTo(traceparent);
            assertThat(backend.request("without traceparent").traceparent()).isNull();
            assertThat(metric(gw, "cachegate_trace_spans_total")).as("no exporter, no span counts").isZero();
        }
    }

    @Test
    void sampledOut_noSpans_butTheClientsSampledDecisionIsKept() throws Exception {
        InMemorySpanExporter none = InMemorySpanExporter.create();
        try (RecordingUpstream backend = new RecordingUpstream();
             Gateway gw = Gateway.startTraced(TestPolicies.parse(untraced(backend, "telemetry: {sampling: 0.0}")),
                     none)) {
            HttpResponse<String> unsampled = RawHttp.post(gw.port(), CHAT, chat("not sampled " + nonce()));
            String traceId = hex(16);
            HttpResponse<String> sampled = RawHttp.post(gw.port(), CHAT, chat("sampled by the client " + nonce()),
                    "traceparent", "00-" + traceId + "-" + hex(8) + "-01");

            assertThat(serverSpan(none, sampled).getTraceId()).isEqualTo(traceId);
            assertThat(backend.request("not sampled").traceparent()).as("the decision goes upstream too")
                    .matches("00-[0-9a-f]{32}-[0-9a-f]{16}-0[02]"); // not sampled (random id or not)
            assertThat(none.getFinishedSpanItems()).noneMatch(s -> header(unsampled, "X-Request-Id")
                    .equals(s.getAttributes().get(SpanAttributes.REQUEST_ID)));
        }
    }

    private static String untraced(RecordingUpstream backend, String extra) {
        return """
                server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 1, shutdown_grace: 1s}
                backends:
                  - {name: main, urls: ["%s"], model_version: "llama@v1"}
                %s
                """.formatted(backend.baseUrl(), extra);
    }

    /** A chat request to the semantic route: a system prompt of the test's own (its scope) and a question. */
    private static String qwen(String system, String question) {
        return "{\"model\":\"qwen2.5-0.5b\",\"temperature\":0,\"messages\":[{\"role\":\"system\",\"content\":"
                + quote(system) + "},{\"role\":\"user\",\"content\":" + quote(question) + "}]}";
    }

    private static HttpResponse<String> post(String body) {
        return post(gateway, body);
    }

    private static HttpResponse<String> post(Gateway gw, String body) {
        try {
            return RawHttp.post(gw.port(), CHAT, body);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static double metricNow(String name) {
        return metricNow(gateway, name);
    }

    private static double metricNow(Gateway gw, String name) {
        try {
            return metric(gw, name);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String linked(LinkData link) {
        assertThat(link.getAttributes().get(SpanAttributes.LINK)).isEqualTo("origin");
        return link.getSpanContext().getTraceId() + "/" + link.getSpanContext().getSpanId();
    }

    private static String hex(int bytes) {
        byte[] id = new byte[bytes];
        ThreadLocalRandom.current().nextBytes(id);
        id[0] |= 1; // never all zero
        return HexFormat.of().formatHex(id);
    }

    static SpanData serverSpan(HttpResponse<?> response) {
        return serverSpan(spans, response);
    }

    /** The SERVER span of the request that got {@code response}, by its request id. */
    static SpanData serverSpan(InMemorySpanExporter exporter, HttpResponse<?> response) {
        String id = header(response, "X-Request-Id");
        return await(exporter, s -> s.getKind() == SpanKind.SERVER
                && id.equals(s.getAttributes().get(SpanAttributes.REQUEST_ID)), "the server span of " + id);
    }

    private static SpanData child(SpanData parent, String name) {
        return child(spans, parent, name);
    }

    /** The child of {@code parent} named {@code name}, once exported (a write-back ends after the answer). */
    static SpanData child(InMemorySpanExporter exporter, SpanData parent, String name) {
        return await(exporter, s -> s.getParentSpanId().equals(parent.getSpanId()) && s.getName().equals(name),
                name + " under " + parent.getName());
    }

    private static List<SpanData> children(SpanData parent) {
        return spans.getFinishedSpanItems().stream().filter(s -> s.getParentSpanId().equals(parent.getSpanId()))
                .toList();
    }

    private static SpanData await(InMemorySpanExporter exporter, java.util.function.Predicate<SpanData> which,
                                  String what) {
        SpanData[] found = new SpanData[1];
        boolean seen = Poll.until(Duration.ofSeconds(20), () -> {
            Optional<SpanData> span = exporter.getFinishedSpanItems().stream().filter(which).findFirst();
            span.ifPresent(s -> found[0] = s);
            return span.isPresent();
        });
        assertThat(seen).as(what + " was exported").isTrue();
        return found[0];
    }
}
