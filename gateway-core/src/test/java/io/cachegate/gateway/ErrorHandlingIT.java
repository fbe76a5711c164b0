package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.testkit.Poll;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Every failure gets an OpenAI error body with the right status, and the gateway keeps serving after it. */
class ErrorHandlingIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String AUTH = "Authorization: Bearer k1";
    private static final String GOOD_CHAT =
            "{\"model\":\"llama-3.1-8b\",\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}],\"max_tokens\":4}";

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator().policy("""
            server:
              max_body_bytes: 1MiB
              max_header_bytes: 8KiB
              json: {max_depth: 16}
            tenants:
              - {id: acme, api_keys: [k1]}
            routes:
              - match: {model: "llama*"}
                backend: main
            """);

    @AfterEach
    void gatewayStillServes() throws Exception {
        HttpResponse<String> ok = RawHttp.post(fixture.port(), "/v1/chat/completions", GOOD_CHAT,
                "Authorization", "Bearer k1");
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
        assertThat(ok.body()).contains("chat.completion");
    }

    @Test
    void malformedJson_is400() throws Exception {
        assertError(chat("{\"model\":\"llama-3.1-8b\",\"messages\":[{\"role\":"), 400, "invalid_json");
        assertError(chat("{\"model\": \"llama"), 400, "invalid_json");
        assertError(chat("not json at all"), 400, "invalid_json");
        assertError(chat(""), 400, "invalid_json");
        assertError(chat("[1,2]"), 400, "invalid_json");
    }

    @Test
    void invalidUtf8_is400() throws Exception {
        byte[] head = "{\"model\":\"llama-3.1-8b\",\"messages\":[{\"role\":\"user\",\"content\":\"a".getBytes(
                StandardCharsets.UTF_8);
        byte[] tail = "\"}]}".getBytes(StandardCharsets.UTF_8);
        byte[] body = new byte[head.length + 2 + tail.length];
        System.arraycopy(head, 0, body, 0, head.length);
        body[head.length] = (byte) 0xff;
        body[head.length + 1] = (byte) 0xfe;
        System.arraycopy(tail, 0, body, head.length + 2, tail.length);

        assertError(RawHttp.exchange(fixture.port(), RawHttp.rawPost("/v1/chat/completions", body, AUTH)), 400,
                "invalid_json");
    }

    @Test
    void wrongTypes_are400() throws Exception {
        assertError(chat("{\"model\":\"llama-3.1-8b\",\"messages\":\"hello\"}"), 400, "invalid_request", "messages");
        assertError(chat("{\"model\":\"llama-3.1-8b\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],"
                + "\"temperature\":\"hot\"}"), 400, "invalid_request", "temperature");
        assertError(chat("{\"model\":\"llama-3.1-8b\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],"
                + "\"stream\":1}"), 400, "invalid_request", "stream");
        assertError(chat("{\"model\":42,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}"), 400,
                "invalid_request", "model");
    }

    @Test
    void missingFields_are400() throws Exception {
        assertError(chat("{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}"), 400, "invalid_request", "model");
        assertError(chat("{\"model\":\"llama-3.1-8b\"}"), 400, "invalid_request", "messages");
        assertError(post("/v1/completions", "{\"model\":\"llama-3.1-8b\"}"), 400, "invalid_request", "prompt");
        assertError(post("/v1/embeddings", "{\"model\":\"llama-3.1-8b\"}"), 400, "invalid_request", "input");
    }

    @Test
    void duplicateKeys_are400() throws Exception {
        assertError(chat("{\"model\":\"llama-3.1-8b\",\"model\":\"other\",\"messages\":[{\"role\":\"user\","
                + "\"content\":\"x\"}]}"), 400, "invalid_json");
    }

    @Test
    void nestingDeeperThanLimit_is400() throws Exception {
        String deep = "[".repeat(40) + "]".repeat(40);
        assertError(chat("{\"model\":\"llama-3.1-8b\",\"messages\":[{\"role\":\"user\",\"content\":" + deep + "}]}"),
                400, "invalid_json");
    }

    @Test
    void trailingGarbage_is400() throws Exception {
        assertError(chat(GOOD_CHAT + " {\"more\":1}"), 400, "invalid_json");
        assertError(chat(GOOD_CHAT + "xyz"), 400, "invalid_json");
    }

    @Test
    void wrongOrMissingApiKey_is401() throws Exception {
        assertError(RawHttp.post(fixture.port(), "/v1/chat/completions", GOOD_CHAT, "Authorization", "Bearer nope"),
                401, "invalid_api_key");
        assertError(RawHttp.post(fixture.port(), "/v1/chat/completions", GOOD_CHAT), 401, "invalid_api_key");
        assertError(RawHttp.post(fixture.port(), "/v1/chat/completions", GOOD_CHAT, "Authorization", "Basic k1"),
                401, "invalid_api_key");
    }

    @Test
    void unknownPath_is404() throws Exception {
        assertError(RawHttp.get(fixture.port(), "/nothing/here", "Authorization", "Bearer k1"), 404, "not_found");
    }

    @Test
    void unknownModel_is404() throws Exception {
        assertError(chat("{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}"), 404,
                "model_not_found", "model");
    }

    @Test
    void getOnChatCompletions_is405() throws Exception {
        HttpResponse<String> response = RawHttp.get(fixture.port(), "/v1/chat/completions", "Authorization", "Bearer k1");
        assertError(response, 405, "method_not_allowed");
        assertThat(response.headers().firstValue("Allow")).isPresent();
    }

    @Test
    void hugeContentLength_is413BeforeTheBodyIsSent() throws Exception {
        try (Socket socket = RawHttp.connect(fixture.port())) {
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\n" + AUTH + "\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 20000000\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            // Not one byte of the body is sent: the answer must come from the headers alone.
            RawHttp.Response response = RawHttp.read(socket.getInputStream());
            assertError(response, 413, "request_too_large");
            assertThat(socket.getInputStream().read()).isEqualTo(-1); // and the connection is closed
        }
    }

    @Test
    void chunkedUploadOverLimit_is413() throws Exception {
        try (Socket socket = RawHttp.connect(fixture.port())) {
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\n" + AUTH + "\r\n"
                    + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            byte[] chunk = new byte[64 * 1024];
            java.util.Arrays.fill(chunk, (byte) ' ');
            try {
                for (int i = 0; i < 20; i++) { // 1.25 MiB against a 1 MiB limit
                    out.write((Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    out.write(chunk);
                    out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
                }
                out.flush();
            } catch (IOException closedWhileSending) {
                // acceptable: the gateway may stop listening once the limit is crossed
            }
            assertError(RawHttp.read(socket.getInputStream()), 413, "request_too_large");
        }
    }

    @Test
    void headersOverLimit_is431() throws Exception {
        String big = "X-Big: " + "a".repeat(20_000);
        RawHttp.Response response = RawHttp.exchange(fixture.port(),
                RawHttp.rawPost("/v1/chat/completions", GOOD_CHAT.getBytes(StandardCharsets.UTF_8), AUTH, big));
        assertError(response, 431, "headers_too_large");
    }

    @Test
    void hangingBackend_is504AfterFirstByteTimeout() throws Exception {
        try (BackendSimulator hanging = BackendSimulator.start(SimulatorOptions.defaults().withHangRate(1.0));
             Gateway gw = Gateway.start(TestPolicies.parse(TestPolicies.yaml(List.of(hanging.baseUrl()), "500ms", "",
                     "")))) {
            long start = System.nanoTime();
            HttpResponse<String> response = RawHttp.post(gw.port(), "/v1/chat/completions", GOOD_CHAT);
            long elapsedMillis = (System.nanoTime() - start) / 1_000_000;

            assertError(response, 504, "upstream_timeout");
            assertThat(elapsedMillis).isGreaterThanOrEqualTo(500);
            assertThat(hanging.stats().hung()).isEqualTo(1);
        }
    }

    @Test
    void deadUrlWithLiveOne_retriesAndSucceeds() throws Exception {
        URI dead = deadUrl();
        try (Gateway gw = Gateway.start(TestPolicies.forBackend(List.of(dead, fixture.sim().baseUrl())))) {
            // Idle replicas tie and the least-loaded choice draws at random: 4 requests all missed the failing
            // replica once in 16 runs; 16 requests miss it once in 65,536.
            for (int i = 0; i < 16; i++) {
                HttpResponse<String> response = RawHttp.post(gw.port(), "/v1/chat/completions", GOOD_CHAT);
                assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            }
        }
    }

    @Test
    void onlyDeadUrls_is502_then503WithoutTryingOnceEjected() throws Exception {
        try (Gateway gw = Gateway.start(TestPolicies.forBackend(List.of(deadUrl(), deadUrl())))) {
            HttpResponse<String> first = RawHttp.post(gw.port(), "/v1/chat/completions", GOOD_CHAT);
            // 502 when the request tried both replicas; 503 when the start-up probes had ejected them already.
            if (first.statusCode() == 502) {
                assertError(first, 502, "upstream_unreachable");
            } else {
                assertError(first, 503, "overloaded");
            }
            assertThat(Poll.untilChecked(Duration.ofSeconds(10), () ->
                    RawHttp.post(gw.port(), "/v1/chat/completions", GOOD_CHAT).statusCode() == 503))
                    .as("both replicas ejected").isTrue();
            HttpResponse<String> ejected = RawHttp.post(gw.port(), "/v1/chat/completions", GOOD_CHAT);
            assertError(ejected, 503, "overloaded");
            assertThat(ejected.body()).contains("down");
            assertThat(ejected.headers().firstValue("Retry-After")).as("the next probe (health.interval 5 s), not eject_for")
                    .hasValue("5");
        }
    }

    @Test
    void serverErrorFromOneUrl_isRetriedOnTheOther() throws Exception {
        try (BackendSimulator failing = BackendSimulator.start(SimulatorOptions.defaults().withErrorRate(1.0));
             Gateway gw = Gateway.start(TestPolicies.forBackend(List.of(failing.baseUrl(), fixture.sim().baseUrl())))) {
            // Idle replicas tie and the least-loaded choice draws at random: 4 requests all missed the failing
            // replica once in 16 runs; 16 requests miss it once in 65,536.
            for (int i = 0; i < 16; i++) {
                HttpResponse<String> response = RawHttp.post(gw.port(), "/v1/chat/completions", GOOD_CHAT);
                assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            }
            assertThat(failing.stats().errors()).isGreaterThanOrEqualTo(1);
        }
    }

    private static URI deadUrl() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        return URI.create("http://127.0.0.1:" + port);
    }

    private static HttpResponse<String> chat(String body) throws Exception {
        return post("/v1/chat/completions", body);
    }

    private static HttpResponse<String> post(String path, String body) throws Exception {
        return RawHttp.post(fixture.port(), path, body, "Authorization", "Bearer k1");
    }

    private static void assertError(HttpResponse<String> response, int status, String code) throws IOException {
        assertError(new RawHttp.Response(response.statusCode(), java.util.Map.of(), response.body()), status, code);
    }

    private static void assertError(HttpResponse<String> response, int status, String code, String param)
            throws IOException {
        JsonNode error = assertError(new RawHttp.Response(response.statusCode(), java.util.Map.of(), response.body()),
                status, code);
        assertThat(error.get("param").asText()).isEqualTo(param);
    }

    private static JsonNode assertError(RawHttp.Response response, int status, String code) throws IOException {
        assertThat(response.status()).as(response.body()).isEqualTo(status);
        assertThat(response.body()).doesNotContain("Exception").doesNotContain("\tat ");
        JsonNode root = JSON.readTree(response.body());
        assertThat(root.fieldNames()).toIterable().containsExactly("error");
        JsonNode error = root.get("error");
        assertThat(error.fieldNames()).toIterable().containsExactlyInAnyOrder("message", "type", "param", "code");
        assertThat(error.get("message").isTextual()).isTrue();
        assertThat(error.get("message").asText()).isNotBlank();
        assertThat(error.get("type").isTextual()).isTrue();
        assertThat(error.get("code").asText()).isEqualTo(code);
        return error;
    }
}
