package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.awaitIndexed;
import static io.cachegate.gateway.CacheCalls.header;
import static io.cachegate.gateway.CacheCalls.json;
import static io.cachegate.gateway.CacheCalls.nonce;
import static io.cachegate.gateway.CacheCalls.quote;
import static io.cachegate.gateway.CacheCalls.xCache;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.HttpResponseFor;
import com.openai.core.http.StreamResponse;
import com.openai.models.responses.Response;
import com.openai.models.responses.ResponseCreateParams;
import com.openai.models.responses.ResponseOutputText;
import com.openai.models.responses.ResponseStreamEvent;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Responses API ({@code POST /v1/responses}) through the gateway with the official OpenAI Java SDK's responses
 * client: exact hits (streamed and not, from a stored JSON answer or a captured stream) give the original text,
 * state held by the backend bypasses the cache unless the route allows it, paraphrases hit the semantic cache.
 */
class ResponsesApiIT {

    private static final String PATH = "/v1/responses";

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator().policy("""
            tenants:
              - {id: acme, api_keys: [acme-key]}
            cache:
              semantic: {enabled: true, path: "${DIR}", ttl: 1h, max_error_rate: 0, audit: {rate: 0}}
            routes:
              - match: {path: /v1/responses, model: "qwen2.5-0.5b"}
                cache: {server_state: true}
              - match: {path: /v1/responses}
                cache: {semantic: true}
              - match: {model: "*"}
                cache: {semantic: false}
            """);
    private static OpenAIClient client;

    @BeforeAll
    static void start() {
        client = OpenAIOkHttpClient.builder().baseUrl("http://127.0.0.1:" + fixture.port() + "/v1")
                .apiKey("acme-key").maxRetries(0).build();
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
    }

    private static ResponseCreateParams params(String input) {
        return ResponseCreateParams.builder().model("llama-3.1-8b").instructions("be helpful").input(input)
                .temperature(0.0).build();
    }

    @Test
    void sdkCreate_missThenHit_sameText() {
        ResponseCreateParams params = params("What is a caching proxy? " + nonce());

        HttpResponseFor<Response> miss = client.responses().withRawResponse().create(params);
        HttpResponseFor<Response> hit = client.responses().withRawResponse().create(params);

        assertThat(miss.headers().values("X-Cache")).containsExactly("MISS");
        assertThat(hit.headers().values("X-Cache")).containsExactly("HIT");
        assertThat(hit.headers().values("X-Cache-Layer")).containsExactly("exact");
        assertThat(hit.headers().values("Server-Timing").get(0)).contains("cache;dur=").contains("total;dur=");
        assertThat(hit.headers().values("X-Cache-Origin-Request-Id")).isEqualTo(miss.headers().values("X-Request-Id"));
        Response original = miss.parse();
        Response replayed = hit.parse();
        assertThat(text(replayed)).isEqualTo(text(original)).isNotBlank();
        assertThat(replayed.id()).as("a hit is the stored answer, as chat hits are").isEqualTo(original.id());
        assertThat(replayed.usage().orElseThrow().outputTokens()).isEqualTo(original.usage().orElseThrow().outputTokens());
    }

    @Test
    void sdkCreateStreaming_capturedThenReplayed_streamedAndWhole() {
        ResponseCreateParams params = params("Stream me a story about caches " + nonce());

        HttpResponseFor<StreamResponse<ResponseStreamEvent>> miss = client.responses().withRawResponse()
                .createStreaming(params);
        String original = streamedText(miss);
        HttpResponseFor<StreamResponse<ResponseStreamEvent>> hit = client.responses().withRawResponse()
                .createStreaming(params);
        List<ResponseStreamEvent> events = events(hit);
        HttpResponseFor<Response> whole = client.responses().withRawResponse().create(params);

        assertThat(miss.headers().values("X-Cache")).containsExactly("MISS");
        assertThat(hit.headers().values("X-Cache")).containsExactly("HIT");
        assertThat(deltas(events)).isEqualTo(original).isNotBlank();
        assertThat(events.get(0).isCreated()).isTrue();
        assertThat(events.get(events.size() - 1).completed()).isPresent();
        assertThat(text(events.get(events.size() - 1).completed().orElseThrow().response())).isEqualTo(original);
        assertThat(whole.headers().values("X-Cache")).as("the captured stream answers a non-streaming request")
                .containsExactly("HIT");
        assertThat(text(whole.parse())).isEqualTo(original);
    }

    @Test
    void previousResponseId_bypasses_unlessTheRouteAllowsServerState() throws Exception {
        String body = "{\"model\":\"%s\",\"input\":" + quote("and then? " + nonce())
                + ",\"temperature\":0,\"previous_response_id\":\"resp_0123\"}";

        HttpResponse<String> first = post(body.formatted("llama-3.1-8b"));
        HttpResponse<String> second = post(body.formatted("llama-3.1-8b"));
        HttpResponse<String> allowedMiss = post(body.formatted("qwen2.5-0.5b"));
        HttpResponse<String> allowedHit = post(body.formatted("qwen2.5-0.5b"));

        assertThat(xCache(first)).isEqualTo("BYPASS");
        assertThat(xCache(second)).isEqualTo("BYPASS");
        assertThat(xCache(allowedMiss)).isEqualTo("MISS");
        assertThat(xCache(allowedHit)).isEqualTo("HIT");
    }

    @Test
    void sampledRequest_bypasses_likeChat() throws Exception {
        String body = "{\"model\":\"llama-3.1-8b\",\"input\":" + quote("sample " + nonce()) + "}";

        assertThat(xCache(post(body))).isEqualTo("BYPASS");
        assertThat(xCache(post(body))).isEqualTo("BYPASS");
    }

    @Test
    void badInput_isOpenAiStyle400() throws Exception {
        HttpResponse<String> response = RawHttp.post(fixture.port(), PATH,
                "{\"model\":\"llama-3.1-8b\",\"input\":[{\"role\":\"user\",\"content\":7}]}",
                "Authorization", "Bearer acme-key");

        assertThat(response.statusCode()).isEqualTo(400);
        JsonNode error = json(response.body()).path("error");
        assertThat(error.path("type").asText()).isEqualTo("invalid_request_error");
        assertThat(error.path("param").asText()).isEqualTo("input[0].content");
        assertThat(error.path("message").asText()).contains("content").doesNotContain("Exception");
    }

    @Test
    void paraphrasedInput_isSemanticHit() throws Exception {
        String instructions = "support bot " + nonce();
        String ask = "{\"model\":\"llama-3.1-8b\",\"temperature\":0,\"instructions\":" + quote(instructions)
                + ",\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":%s}]}]}";
        HttpResponse<String> first = post(ask.formatted(quote("How do I reset my password?")));
        awaitIndexed(fixture.gateway());

        HttpResponse<String> paraphrase = post(ask.formatted(quote("How can I reset my password?")));

        assertThat(xCache(first)).isEqualTo("MISS");
        assertThat(xCache(paraphrase)).isEqualTo("HIT");
        assertThat(header(paraphrase, "X-Cache-Layer")).isEqualTo("semantic");
        assertThat(Double.parseDouble(header(paraphrase, "X-Cache-Similarity"))).isBetween(0.9, 1.0);
        assertThat(header(paraphrase, "Server-Timing")).contains("embed;dur=").contains("search;dur=");
        assertThat(outputText(paraphrase.body())).isEqualTo(outputText(first.body())).isNotBlank();
        HttpResponse<String> otherInstructions = post(ask.replace(quote(instructions), quote("another bot"))
                .formatted(quote("How can I reset my password?")));
        assertThat(xCache(otherInstructions)).as("the instructions are in the scope").isEqualTo("MISS");
    }

    private static HttpResponse<String> post(String body) throws Exception {
        HttpResponse<String> response = RawHttp.post(fixture.port(), PATH, body, "Authorization", "Bearer acme-key");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response;
    }

    static String outputText(String body) {
        StringBuilder text = new StringBuilder();
        for (JsonNode item : json(body).path("output")) {
            item.path("content").forEach(part -> text.append(part.path("text").asText()));
        }
        return text.toString();
    }

    private static String text(Response response) {
        return response.output().stream().flatMap(item -> item.message().stream())
                .flatMap(message -> message.content().stream())
                .flatMap(content -> content.outputText().stream())
                .map(ResponseOutputText::text).collect(Collectors.joining());
    }

    private static List<ResponseStreamEvent> events(HttpResponseFor<StreamResponse<ResponseStreamEvent>> raw) {
        try (StreamResponse<ResponseStreamEvent> stream = raw.parse()) {
            return stream.stream().toList();
        }
    }

    private static String streamedText(HttpResponseFor<StreamResponse<ResponseStreamEvent>> raw) {
        return deltas(events(raw));
    }

    private static String deltas(List<ResponseStreamEvent> events) {
        return events.stream().flatMap(event -> event.outputTextDelta().stream())
                .map(delta -> delta.delta()).collect(Collectors.joining());
    }
}
