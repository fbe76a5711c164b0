package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.Policy;
import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.simulator.SimulatorReplicas;
import com.sun.net.httpserver.HttpServer;
import io.cachegate.testkit.Poll;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Replica choice and health through the gateway, against simulator replicas: a killed replica costs no request,
 * all replicas down answers 503 without trying, prefix affinity keeps a shared prompt on one replica, and a
 * route's fallback model serves when its backend is down, never filed under the requested model's key.
 */
class RoutingIT {

    private static final String CHAT = "/v1/chat/completions";

    @Test
    void killedReplica_requestsStillSucceedOnTheOthers() throws Exception {
        try (SimulatorReplicas sims = BackendSimulator.startReplicas(3, SimulatorOptions.defaults());
             Gateway gw = Gateway.start(policy(sims.baseUrls(), "least_loaded", ""))) {
            sims.stop(1);

            for (int i = 0; i < 12; i++) {
                HttpResponse<String> response = RawHttp.post(gw.port(), CHAT, sampled("killed replica " + i));
                assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            }
            assertThat(sims.stats(0).requests() + sims.stats(2).requests()).isGreaterThanOrEqualTo(12);
        }
    }

    @Test
    void allReplicasDown_is503WithRetryAfter_withoutTryingThemOnceEjected() throws Exception {
        try (SimulatorReplicas sims = BackendSimulator.startReplicas(2, SimulatorOptions.defaults());
             Gateway gw = Gateway.start(policy(sims.baseUrls(), "least_loaded", ""))) {
            sims.stop(0);
            sims.stop(1);

            assertThat(Poll.until(Duration.ofSeconds(10), () -> status(gw, sampled("down")) == 503)).isTrue();
            HttpResponse<String> response = RawHttp.post(gw.port(), CHAT, sampled("down again"));
            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(json(response.body()).path("error").path("message").asText()).contains("down");
            assertThat(response.headers().firstValue("Retry-After")).isPresent();
            assertThat(CacheCalls.metric(gw, "cachegate_backend_ejections_total", "backend=\"main\""))
                    .as("both replicas ejected, counted for the alert rules").isGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void prefixAffinity_sendsASharedSystemPromptToOneReplica() throws Exception {
        SimulatorOptions options = SimulatorOptions.defaults().withPrefixCacheBlocks(1000);
        try (SimulatorReplicas sims = BackendSimulator.startReplicas(3, options);
             Gateway gw = Gateway.start(policy(sims.baseUrls(), "prefix_affinity", ""))) {
            String system = "You are the support assistant of a bank. ".repeat(40);

            for (int i = 0; i < 9; i++) {
                String body = "{\"model\":\"llama-3.1-8b\",\"temperature\":0.7,\"messages\":[{\"role\":\"system\","
                        + "\"content\":\"" + system + "\"},{\"role\":\"user\",\"content\":\"question " + i + "\"}]}";
                assertThat(RawHttp.post(gw.port(), CHAT, body).statusCode()).isEqualTo(200);
            }

            List<Long> perReplica = List.of(sims.stats(0).requests(), sims.stats(1).requests(), sims.stats(2).requests());
            assertThat(perReplica).as("requests per replica").contains(9L);
            long prefixHits = sims.stats(0).prefixBlocksHit() + sims.stats(1).prefixBlocksHit() + sims.stats(2).prefixBlocksHit();
            assertThat(prefixHits).as("the replica's prefix cache served the shared prompt").isPositive();
        }
    }

    @Test
    void roundRobin_spreadsRequestsOverEveryReplica() throws Exception {
        try (SimulatorReplicas sims = BackendSimulator.startReplicas(3, SimulatorOptions.defaults());
             Gateway gw = Gateway.start(policy(sims.baseUrls(), "round_robin", ""))) {
            for (int i = 0; i < 9; i++) {
                assertThat(RawHttp.post(gw.port(), CHAT, sampled("spread " + i)).statusCode()).isEqualTo(200);
            }

            assertThat(List.of(sims.stats(0).requests(), sims.stats(1).requests(), sims.stats(2).requests()))
                    .containsExactly(3L, 3L, 3L);
        }
    }

    @Test
    void primaryDown_fallbackModelAnswers_andIsCachedUnderTheModelThatAnswered() throws Exception {
        try (SimulatorReplicas main = BackendSimulator.startReplicas(1, SimulatorOptions.defaults());
             BackendSimulator small = BackendSimulator.start(SimulatorOptions.defaults());
             Gateway gw = Gateway.start(GatewayFixture.basePolicy("""
                     backends:
                       - {name: main, urls: ["%s"], models: ["llama-3.1-8b"], model_version: "llama@1"}
                       - {name: small, urls: ["%s"], models: ["*"], model_version: "small@1"}
                     routes:
                       - match: {model: "llama-3.1-8b"}
                         backend: main
                         fallback: small
                         fallback_model: qwen2.5-0.5b
                       - match: {model: "qwen2.5-0.5b"}
                         backend: small
                     """.formatted(main.baseUrls().get(0), small.baseUrl())))) {
            main.stop(0);
            String body = "{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"messages\":[{\"role\":\"user\","
                    + "\"content\":\"fallback please\"}]}";

            assertThat(Poll.until(Duration.ofSeconds(10), () -> {
                try {
                    HttpResponse<String> r = RawHttp.post(gw.port(), CHAT, body);
                    return r.statusCode() == 200
                            && "qwen2.5-0.5b".equals(r.headers().firstValue("X-Cachegate-Model").orElse(""));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            })).as("the fallback answers once the primary is ejected").isTrue();
            HttpResponse<String> again = RawHttp.post(gw.port(), CHAT, body);
            assertThat(again.headers().firstValue("X-Cache")).as("a fallback answer is not stored as llama's")
                    .contains("MISS");
            assertThat(json(again.body()).path("model").asText()).isEqualTo("qwen2.5-0.5b");
            HttpResponse<String> asked = RawHttp.post(gw.port(), CHAT, body.replace("llama-3.1-8b", "qwen2.5-0.5b"));
            assertThat(asked.headers().firstValue("X-Cache")).as("filed under the model that answered").contains("HIT");
            assertThat(asked.body()).isEqualTo(again.body());
        }
    }

    @Test
    void contextLengthError_isRetriedOnTheFallbackModel_otherErrorsAreRelayed() throws Exception {
        HttpServer tooSmall = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        tooSmall.createContext("/", exchange -> {
            String request = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            byte[] error = (request.contains("long document")
                    ? "{\"error\":{\"message\":\"This model's maximum context length is 8192 tokens\","
                            + "\"type\":\"invalid_request_error\",\"param\":\"messages\",\"code\":\"context_length_exceeded\"}}"
                    : "{\"error\":{\"message\":\"temperature too high\",\"type\":\"invalid_request_error\","
                            + "\"param\":\"temperature\",\"code\":null}}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(exchange.getRequestURI().getPath().equals("/v1/models") ? 200 : 400,
                    error.length);
            exchange.getResponseBody().write(error);
            exchange.close();
        });
        tooSmall.start();
        try (BackendSimulator large = BackendSimulator.start(SimulatorOptions.defaults());
             Gateway gw = Gateway.start(GatewayFixture.basePolicy("""
                     backends:
                       - {name: main, urls: ["http://127.0.0.1:%d"], models: ["llama-3.1-8b"], model_version: "llama@1"}
                       - {name: long, urls: ["%s"], models: ["*"], model_version: "long@1"}
                     routes:
                       - match: {model: "llama-3.1-8b"}
                         backend: main
                         fallback: long
                         fallback_model: qwen2.5-0.5b
                     """.formatted(tooSmall.getAddress().getPort(), large.baseUrl())))) {
            HttpResponse<String> moved = RawHttp.post(gw.port(), CHAT, sampled("summarise this long document"));
            HttpResponse<String> relayed = RawHttp.post(gw.port(), CHAT, sampled("a plain question"));

            assertThat(moved.statusCode()).as(moved.body()).isEqualTo(200);
            assertThat(moved.headers().firstValue("X-Cachegate-Model")).contains("qwen2.5-0.5b");
            assertThat(json(moved.body()).path("model").asText()).isEqualTo("qwen2.5-0.5b");
            assertThat(large.stats().requests()).isEqualTo(1);
            assertThat(relayed.statusCode()).isEqualTo(400);
            assertThat(json(relayed.body()).path("error").path("message").asText()).isEqualTo("temperature too high");
        } finally {
            tooSmall.stop(0);
        }
    }

    private static int status(Gateway gw, String body) {
        try {
            return RawHttp.post(gw.port(), CHAT, body).statusCode();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A request the cache never answers (sampled), so every one reaches a replica. */
    private static String sampled(String prompt) {
        return "{\"model\":\"llama-3.1-8b\",\"temperature\":0.7,\"messages\":[{\"role\":\"user\",\"content\":\""
                + prompt + "\"}]}";
    }

    static Policy policy(List<URI> urls, String balance, String extra) {
        return GatewayFixture.basePolicy("""
                backends:
                  - name: main
                    urls: [%s]
                    model_version: "llama@1"
                    balance: %s
                    health: {interval: 1s, failures_to_eject: 1, eject_for: 30s}
                    timeouts: {connect: 500ms, first_byte: 5s, idle: 5s, total: 30s}
                %s""".formatted(urls.stream().map(u -> "\"" + u + "\"").collect(Collectors.joining(", ")), balance, extra));
    }
}
