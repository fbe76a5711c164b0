package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.json;
import static io.cachegate.gateway.CacheCalls.metric;
import static io.cachegate.gateway.CacheCalls.nonce;
import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.HttpResponseFor;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.sun.net.httpserver.HttpServer;
import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.simulator.SimulatorReplicas;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A route with a fallback chain, {@code main → small → tiny}, against three simulators (tiny serves only
 * qwen2.5-0.5b, so the request reaching it proves it was moved to that model): the primary down sends the request
 * to small, the primary and small down to tiny, a context-length error to the next hop that has not been tried; an
 * answer is filed under the model that gave it, and a policy reload changes the chain.
 */
class FallbackChainIT {

    private static final String TINY_MODEL = "qwen2.5-0.5b";

    private SimulatorReplicas main;
    private SimulatorReplicas small;
    private BackendSimulator tiny;

    @BeforeEach
    void startBackends() throws Exception {
        main = BackendSimulator.startReplicas(1, SimulatorOptions.defaults());
        small = BackendSimulator.startReplicas(1, SimulatorOptions.defaults());
        tiny = BackendSimulator.start(SimulatorOptions.defaults().withModels(List.of(TINY_MODEL)));
    }

    @AfterEach
    void stopBackends() throws Exception {
        Closing.all(main, small, tiny);
    }

    @Test
    void primaryDown_theFirstHopAnswers_withoutAFailedRequest() throws Exception {
        try (Gateway gw = Gateway.start(TestPolicies.parse(policy(main.baseUrls().get(0), small.baseUrls().get(0),
                CHAIN)))) {
            main.stop(0);

            HttpResponse<String> answer = RawHttp.post(gw.port(), CHAT, chat("primary down " + nonce()));

            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            assertThat(answer.headers().firstValue("X-Cachegate-Model")).contains("llama-3.1-8b");
            assertThat(small.stats(0).requests()).as("small answered").isEqualTo(1);
            assertThat(tiny.stats().requests()).isZero();
            assertThat(metric(gw, "cachegate_fallbacks_total", "reason=\"primary_down\"")).isEqualTo(1);
        }
    }

    @Test
    void primaryAndFirstHopDown_theSecondHopAnswers_andItsAnswerIsAHitForItsModel() throws Exception {
        try (Gateway gw = Gateway.start(TestPolicies.parse(policy(main.baseUrls().get(0), small.baseUrls().get(0),
                CHAIN)))) {
            main.stop(0);
            small.stop(0);
            String body = chat("both down " + nonce());

            HttpResponse<String> answer = RawHttp.post(gw.port(), CHAT, body);

            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            assertThat(answer.headers().firstValue("X-Cachegate-Model")).contains(TINY_MODEL);
            assertThat(json(answer.body()).path("model").asText()).isEqualTo(TINY_MODEL);
            assertThat(tiny.stats().requests()).isEqualTo(1);
            assertThatFiledUnderTheTinyModel(gw, body, answer);
        }
    }

    @Test
    void openAiSdk_streamsAndGetsAnswersThroughTheChain_andTheSecondHopsAnswerIsAHit() throws Exception {
        try (Gateway gw = Gateway.start(TestPolicies.parse(policy(main.baseUrls().get(0), small.baseUrls().get(0),
                CHAIN)))) {
            main.stop(0);
            small.stop(0);
            OpenAIClient client = OpenAIOkHttpClient.builder().baseUrl("http://127.0.0.1:" + gw.port() + "/v1")
                    .apiKey("x").maxRetries(0).build();
            ChatCompletionCreateParams params = ChatCompletionCreateParams.builder().model("llama-3.1-8b")
                    .addUserMessage("through the chain " + nonce()).temperature(0.0).build();

            StringBuilder streamed = new StringBuilder();
            try (StreamResponse<ChatCompletionChunk> chunks = client.chat().completions().createStreaming(params)) {
                chunks.stream().forEach(c -> {
                    assertThat(c.model()).isEqualTo(TINY_MODEL);
                    c.choices().forEach(choice -> choice.delta().content().ifPresent(streamed::append));
                });
            }
            HttpResponseFor<ChatCompletion> whole = client.chat().completions().withRawResponse().create(params);
            ChatCompletion answer = whole.parse();
            HttpResponseFor<ChatCompletion> again = client.chat().completions().withRawResponse()
                    .create(params.toBuilder().model(TINY_MODEL).build());

            assertThat(streamed.toString()).isNotBlank();
            assertThat(answer.model()).isEqualTo(TINY_MODEL);
            assertThat(answer.choices().get(0).message().content()).contains(streamed.toString());
            assertThat(whole.headers().values("X-Cachegate-Model")).contains(TINY_MODEL);
            assertThat(again.headers().values("X-Cache")).as("filed under the model that answered").contains("HIT");
            assertThat(again.parse().choices().get(0).message().content()).contains(streamed.toString());
            assertThat(tiny.stats().requests()).as("the stream and the whole answer; the hit never reached it").isEqualTo(2);
        }
    }

    @Test
    void contextLengthError_movesOnToEachHopNotYetTried() throws Exception {
        AtomicInteger refused = new AtomicInteger();
        HttpServer shortMain = contextLimited(refused);
        HttpServer shortSmall = contextLimited(refused);
        try (Gateway gw = Gateway.start(TestPolicies.parse(policy(address(shortMain), address(shortSmall), CHAIN)))) {
            String body = chat("summarise this long document " + nonce());

            HttpResponse<String> answer = RawHttp.post(gw.port(), CHAT, body);

            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            assertThat(refused.get()).as("main and small each refused the prompt once").isEqualTo(2);
            assertThat(answer.headers().firstValue("X-Cachegate-Model")).contains(TINY_MODEL);
            assertThat(metric(gw, "cachegate_fallbacks_total", "reason=\"context_length\"")).isEqualTo(2);
            assertThatFiledUnderTheTinyModel(gw, body, answer);
        } finally {
            shortMain.stop(0);
            shortSmall.stop(0);
        }
    }

    @Test
    void reload_changesTheChain() throws Exception {
        Path dir = Files.createTempDirectory("cachegate-fallback-it");
        Path file = dir.resolve("policy.yaml");
        URI mainUrl = main.baseUrls().get(0);
        URI smallUrl = small.baseUrls().get(0);
        Files.writeString(file, policy(mainUrl, smallUrl, CHAIN));
        try (Gateway gw = Gateway.start(TestPolicies.parse(Files.readString(file)), file)) {
            main.stop(0);
            assertThat(RawHttp.post(gw.port(), CHAT, chat("before " + nonce())).headers()
                    .firstValue("X-Cachegate-Model")).contains("llama-3.1-8b");

            write(file, policy(mainUrl, smallUrl, "[{backend: tiny, model: " + TINY_MODEL + "}, small]"));
            HttpResponse<String> reload = RawHttp.post(gw.adminPort(), "/admin/reload", "");
            assertThat(reload.statusCode()).as(reload.body()).isEqualTo(200);

            HttpResponse<String> after = RawHttp.post(gw.port(), CHAT, chat("after " + nonce()));
            assertThat(after.statusCode()).as(after.body()).isEqualTo(200);
            assertThat(after.headers().firstValue("X-Cachegate-Model")).as("tiny is now the first hop")
                    .contains(TINY_MODEL);
            assertThat(small.stats(0).requests()).isEqualTo(1);
            assertThat(tiny.stats().requests()).isEqualTo(1);
        }
    }

    /** Asked of tiny's model directly, the same prompt is a hit with the answer the chain gave. */
    private static void assertThatFiledUnderTheTinyModel(Gateway gw, String body, HttpResponse<String> answer)
            throws Exception {
        HttpResponse<String> asked = RawHttp.post(gw.port(), CHAT, body.replace("llama-3.1-8b", TINY_MODEL));
        assertThat(asked.headers().firstValue("X-Cache")).as("filed under the model that answered").contains("HIT");
        assertThat(json(asked.body()).path("model").asText()).isEqualTo(TINY_MODEL);
        assertThat(asked.body()).isEqualTo(answer.body());
    }

    private static final String CHAIN = "[small, {backend: tiny, model: " + TINY_MODEL + "}]";

    private String policy(URI mainUrl, URI smallUrl, String chain) {
        return """
                server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 2}
                backends:
                  - {name: main, urls: ["%s"], models: ["llama-3.1-8b"], model_version: "llama@1",
                     timeouts: {connect: 500ms, first_byte: 5s, idle: 5s, total: 30s}}
                  - {name: small, urls: ["%s"], models: ["llama-3.1-8b"], model_version: "small@1",
                     timeouts: {connect: 500ms, first_byte: 5s, idle: 5s, total: 30s}}
                  - {name: tiny, urls: ["%s"], models: ["%s"], model_version: "tiny@1"}
                cache:
                  exact: {store: memory, ttl: 1h}
                routes:
                  - match: {model: "llama-3.1-8b"}
                    backend: main
                    fallbacks: %s
                  - match: {model: "%s"}
                    backend: tiny
                """.formatted(mainUrl, smallUrl, tiny.baseUrl(), TINY_MODEL, chain, TINY_MODEL);
    }

    /** A deterministic (cacheable) chat request for llama-3.1-8b. */
    private static String chat(String prompt) {
        return CacheCalls.chat(prompt);
    }

    /** A backend whose model's context is too short for any prompt: OpenAI's 400 context_length_exceeded. */
    private static HttpServer contextLimited(AtomicInteger refused) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            boolean models = exchange.getRequestURI().getPath().equals("/v1/models");
            byte[] body = (models ? "{\"object\":\"list\",\"data\":[]}"
                    : "{\"error\":{\"message\":\"This model's maximum context length is 16 tokens\","
                            + "\"type\":\"invalid_request_error\",\"param\":\"messages\","
                            + "\"code\":\"context_length_exceeded\"}}").getBytes(StandardCharsets.UTF_8);
            if (!models) {
                refused.incrementAndGet();
            }
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(models ? 200 : 400, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        return server;
    }

    private static URI address(HttpServer server) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** Writes the policy the way a ConfigMap update does: a new file swapped into place. */
    private static void write(Path file, String yaml) throws Exception {
        Path tmp = Files.createTempFile(file.getParent(), "policy", ".tmp");
        Files.writeString(tmp, yaml);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
