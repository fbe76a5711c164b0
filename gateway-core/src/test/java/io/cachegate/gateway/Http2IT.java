package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * HTTP/2 on the proxy port in cleartext: Java's HttpClient upgrading with {@code Upgrade: h2c}, a frame-level client
 * by prior knowledge. Answers, cache hits and streams as over HTTP/1.1; many streams on one connection; the limits
 * per stream (body size) and per connection (concurrent streams) answered per protocol, the connection kept.
 * TLS with ALPN is {@link Http2TlsIT}, curl is {@link Http2CurlIT}, slow clients are {@link Http2SlowClientsIT}.
 */
class Http2IT {

    static final String CHAT = "/v1/chat/completions";

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator().policy(policy(""));

    /**
     * An exact-cached catch-all route, bodies up to 16 KiB, the model version fixed (a first request before the
     * backend's model list was read would be a BYPASS); {@code extraServer}: more server keys, as flow-map entries.
     */
    static String policy(String extraServer) {
        return """
                server: {max_body_bytes: 16KiB%s}
                backends:
                  - {name: main, timeouts: {connect: 1s, first_byte: 5s, idle: 5s, total: 60s}}
                """.formatted(extraServer.isEmpty() ? "" : ", " + extraServer);
    }

    static HttpClient http2Client() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    static HttpRequest post(String scheme, int port, String body) {
        return HttpRequest.newBuilder(URI.create(scheme + "://127.0.0.1:" + port + CHAT))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    @Test
    void h2cUpgrade_missThenHit_overHttp2() throws Exception {
        HttpClient client = http2Client();
        String body = CacheCalls.chat("over h2c " + CacheCalls.nonce());

        HttpResponse<String> first = client.send(post("http", fixture.port(), body), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> second = client.send(post("http", fixture.port(), body), HttpResponse.BodyHandlers.ofString());

        assertThat(first.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(second.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(CacheCalls.xCache(first)).isEqualTo("MISS");
        assertThat(CacheCalls.xCache(second)).isEqualTo("HIT");
        assertThat(CacheCalls.header(second, "X-Cache-Layer")).isEqualTo("exact");
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(first.headers().map().keySet()).as("no connection-level headers on HTTP/2")
                .doesNotContain("connection", "transfer-encoding", "keep-alive", "upgrade");
    }

    @Test
    void repeatedHeaderFields_overHttp2_listsReadWhole_singleValuesRefused() throws Exception {
        HttpClient client = http2Client();
        String body = CacheCalls.chat("repeated fields over h2 " + CacheCalls.nonce());
        client.send(post("http", fixture.port(), CacheCalls.chat("warm " + CacheCalls.nonce())),
                HttpResponse.BodyHandlers.ofString()); // the upgrade: what follows are plain h2 streams

        HttpResponse<String> listed = client.send(HttpRequest.newBuilder(post("http", fixture.port(), body), (n, v) -> true)
                .header("Cache-Control", "max-age=60").header("Cache-Control", "no-store").build(),
                HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> twice = client.send(HttpRequest.newBuilder(post("http", fixture.port(), body), (n, v) -> true)
                .header("X-Cache-Threshold", "0.99").header("X-Cache-Threshold", "0.5").build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(listed.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(CacheCalls.xCache(listed)).as("no-store in the second field").isEqualTo("BYPASS");
        assertThat(twice.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(twice.statusCode()).isEqualTo(400);
        assertThat(twice.body()).contains("More than one x-cache-threshold header");
    }

    @Test
    void streamedAnswer_overHttp2_readToTheEnd_thenReplayedFromTheCache() throws Exception {
        HttpClient client = http2Client();
        String body = CacheCalls.chat("streamed over h2c " + CacheCalls.nonce(), "\"stream\":true");

        HttpResponse<String> miss = client.send(post("http", fixture.port(), body), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> hit = client.send(post("http", fixture.port(), body), HttpResponse.BodyHandlers.ofString());

        assertThat(miss.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(miss.headers().firstValue("content-type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("text/event-stream"));
        assertThat(miss.body()).contains("data: {").endsWith("data: [DONE]\n\n");
        assertThat(CacheCalls.xCache(miss)).isEqualTo("MISS");
        assertThat(CacheCalls.xCache(hit)).isEqualTo("HIT");
        assertThat(hit.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(hit.body()).contains("data: {").endsWith("data: [DONE]\n\n");
    }

    @Test
    void concurrentRequests_fromOneClient_allAnsweredOverHttp2() throws Exception {
        HttpClient client = http2Client();
        client.send(post("http", fixture.port(), CacheCalls.chat("warm " + CacheCalls.nonce())),
                HttpResponse.BodyHandlers.ofString()); // the upgrade; the rest share its connection
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            calls.add(client.sendAsync(post("http", fixture.port(), CacheCalls.chat("concurrent " + i + " "
                    + CacheCalls.nonce())), HttpResponse.BodyHandlers.ofString()));
        }
        for (CompletableFuture<HttpResponse<String>> call : calls) {
            HttpResponse<String> response = call.get();
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_2);
        }
    }

    @Test
    void priorKnowledge_severalStreamsOnOneConnection_eachAnswered() throws Exception {
        try (RawH2 h2 = RawH2.connect(fixture.port())) {
            String nonce = CacheCalls.nonce();
            for (int stream = 1; stream <= 9; stream += 2) {
                h2.post(stream, CHAT, CacheCalls.chat("stream " + stream + " " + nonce)
                        .getBytes(StandardCharsets.UTF_8));
            }
            h2.await(1, 3, 5, 7, 9);

            for (int stream = 1; stream <= 9; stream += 2) {
                RawH2.Answer answer = h2.answers.get(stream);
                assertThat(answer.status()).isEqualTo("200");
                assertThat(answer.header("x-cache")).isEqualTo("MISS");
                assertThat(answer.text()).contains("\"object\":\"chat.completion\"");
                assertThat(answer.headers.contains("connection")).isFalse();
            }
        }
    }

    @Test
    void bodyOverTheLimit_onOneStream_gets413_whileOtherStreamsAreAnswered() throws Exception {
        try (RawH2 h2 = RawH2.connect(fixture.port())) {
            byte[] big = CacheCalls.chat("x".repeat(40_000)).getBytes(StandardCharsets.UTF_8);
            h2.headers(1, "POST", CHAT, false, "content-type", "application/json"); // no length: found out on the way
            h2.headers(3, "POST", CHAT, false, "content-type", "application/json",
                    "content-length", Integer.toString(big.length)); // refused from its head
            h2.post(5, CHAT, CacheCalls.chat("beside a big one " + CacheCalls.nonce())
                    .getBytes(StandardCharsets.UTF_8));
            h2.data(1, big, true);
            h2.await(1, 3, 5);
            h2.headers(7, "GET", "/v1/models", true);
            h2.await(7);

            assertThat(h2.answers.get(1).status()).isEqualTo("413");
            assertThat(h2.answers.get(1).text()).contains("\"code\":\"request_too_large\"");
            assertThat(h2.answers.get(1).headers.contains("connection")).as("Connection: close not sent").isFalse();
            assertThat(h2.answers.get(3).status()).isEqualTo("413");
            assertThat(h2.answers.get(5).status()).isEqualTo("200");
            assertThat(h2.answers.get(7).status()).as("the connection goes on").isEqualTo("200");
        }
    }

    @Test
    void streamsBeyondTheConcurrentLimit_areRefused_andTheConnectionGoesOn() throws Exception {
        try (RawH2 h2 = RawH2.connect(fixture.port())) {
            int open = 110; // bodies never sent: each stream stays open
            for (int i = 0; i < open; i++) {
                h2.headers(1 + 2 * i, "POST", CHAT, false, "content-type", "application/json");
            }
            int refused = 0;
            while (refused < open - 100) {
                RawH2.Frame f = h2.next();
                assertThat(f.type()).as("no GOAWAY").isNotEqualTo(RawH2.GOAWAY);
                if (f.type() == RawH2.RST_STREAM) {
                    assertThat(f.errorCode()).isEqualTo(RawH2.REFUSED_STREAM);
                    assertThat(f.stream()).isGreaterThan(199); // the first 100 streams are within the limit
                    refused++;
                }
            }
            h2.ping();
            assertThat(h2.awaitFrame(RawH2.PING, 0).flags()).isEqualTo(RawH2.ACK);
            h2.data(1, CacheCalls.chat("after the flood " + CacheCalls.nonce()).getBytes(StandardCharsets.UTF_8),
                    true);
            h2.await(1);
            assertThat(h2.answers.get(1).status()).isEqualTo("200");
        }
    }

    @Test
    void http11_stillAnswered_withTheUpgradeHandlerInPlace() throws Exception {
        HttpResponse<String> response = RawHttp.post(fixture.port(), CHAT, CacheCalls.chat("plain " + CacheCalls.nonce()));

        assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
        assertThat(response.statusCode()).isEqualTo(200);
    }
}
