package io.cachegate.simulator;

import static io.cachegate.simulator.TestHttp.get;
import static io.cachegate.simulator.TestHttp.json;
import static io.cachegate.simulator.TestHttp.post;
import static io.cachegate.simulator.TestHttp.sseData;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class EndpointsTest {

    private static BackendSimulator sim;

    @BeforeAll
    static void start() {
        sim = BackendSimulator.start(SimulatorOptions.defaults());
    }

    @AfterAll
    static void stop() {
        sim.close();
    }

    @Test
    void completions_nonStreaming_returnsTextCompletion() {
        HttpResponse<String> response = post(sim, "/v1/completions",
                "{\"model\":\"qwen2.5-0.5b\",\"prompt\":\"Once upon a time\",\"max_tokens\":4}");

        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode body = json(response.body());
        assertThat(body.get("id").asText()).startsWith("cmpl-");
        assertThat(body.get("object").asText()).isEqualTo("text_completion");
        JsonNode choice = body.get("choices").get(0);
        assertThat(choice.get("text").asText().split(" ")).hasSize(5);
        assertThat(choice.get("finish_reason").asText()).isEqualTo("length");
        assertThat(body.get("usage").get("prompt_tokens").asInt()).isEqualTo(4);
    }

    @Test
    void completions_streaming_textChunksEqualNonStreamedText() {
        String request = "{\"model\":\"qwen2.5-0.5b\",\"prompt\":\"Once upon a time\",\"max_tokens\":6}";
        String whole = json(post(sim, "/v1/completions", request).body()).get("choices").get(0).get("text").asText();

        List<String> events = sseData(post(sim, "/v1/completions",
                request.replace("{", "{\"stream\":true,\"stream_options\":{\"include_usage\":true},")).body());

        assertThat(events).hasSize(6 + 1 + 1);
        assertThat(events.get(7)).isEqualTo("[DONE]");
        StringBuilder text = new StringBuilder();
        for (String event : events.subList(0, 6)) {
            JsonNode chunk = json(event);
            assertThat(chunk.get("object").asText()).isEqualTo("text_completion");
            assertThat(chunk.get("usage").isNull()).isTrue();
            text.append(chunk.get("choices").get(0).get("text").asText());
        }
        assertThat(text.toString()).isEqualTo(whole);
        assertThat(json(events.get(5)).get("choices").get(0).get("finish_reason").asText()).isEqualTo("length");
        assertThat(json(events.get(6)).get("usage").get("completion_tokens").asInt()).isEqualTo(6);
    }

    @Test
    void embeddings_float_returnsDeterministicUnitVectors() {
        String request = "{\"model\":\"llama-3.1-8b\",\"input\":[\"hello world\",\"goodbye\"]}";

        JsonNode a = json(post(sim, "/v1/embeddings", request).body());
        JsonNode b = json(post(sim, "/v1/embeddings", request).body());

        assertThat(a.get("object").asText()).isEqualTo("list");
        assertThat(a.get("data")).hasSize(2);
        JsonNode first = a.get("data").get(0).get("embedding");
        assertThat(first).hasSize(EmbeddingGenerator.DIMENSION);
        double norm = 0;
        for (JsonNode value : first) {
            norm += value.asDouble() * value.asDouble();
        }
        assertThat(norm).isCloseTo(1.0, within(1e-4));
        assertThat(a.get("data")).isEqualTo(b.get("data"));
        assertThat(a.get("data").get(1).get("embedding")).isNotEqualTo(first);
        assertThat(a.get("usage").get("prompt_tokens").asInt()).isEqualTo(3);
    }

    @Test
    void embeddings_base64_decodesToTheFloatVector() {
        JsonNode floats = json(post(sim, "/v1/embeddings",
                "{\"model\":\"llama-3.1-8b\",\"input\":\"hello world\"}").body());
        JsonNode base64 = json(post(sim, "/v1/embeddings",
                "{\"model\":\"llama-3.1-8b\",\"input\":\"hello world\",\"encoding_format\":\"base64\"}").body());

        ByteBuffer bytes = ByteBuffer.wrap(Base64.getDecoder().decode(base64.get("data").get(0).get("embedding").asText()))
                .order(ByteOrder.LITTLE_ENDIAN);
        assertThat(bytes.remaining()).isEqualTo(EmbeddingGenerator.DIMENSION * 4);
        JsonNode expected = floats.get("data").get(0).get("embedding");
        for (int i = 0; i < EmbeddingGenerator.DIMENSION; i++) {
            assertThat(bytes.getFloat()).isEqualTo((float) expected.get(i).asDouble());
        }
    }

    @Test
    void embeddings_tokenArrayInput_isAccepted() {
        HttpResponse<String> response = post(sim, "/v1/embeddings", "{\"model\":\"llama-3.1-8b\",\"input\":[1,2,3]}");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(json(response.body()).get("data")).hasSize(1);
    }

    @Test
    void models_listsServedModelsLikeVllm() {
        HttpResponse<String> response = get(sim, "/v1/models");

        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode body = json(response.body());
        assertThat(body.get("object").asText()).isEqualTo("list");
        assertThat(body.get("data")).hasSize(2);
        JsonNode card = body.get("data").get(0);
        assertThat(card.get("id").asText()).isEqualTo("llama-3.1-8b");
        assertThat(card.get("object").asText()).isEqualTo("model");
        assertThat(card.get("owned_by").asText()).isEqualTo("vllm");
        assertThat(card.get("root").asText()).isEqualTo("llama-3.1-8b");
        assertThat(card.get("parent").isNull()).isTrue();
        assertThat(card.get("max_model_len").asInt()).isEqualTo(8192);
        assertThat(card.get("permission").get(0).get("object").asText()).isEqualTo("model_permission");
    }

    @Test
    void health_returns200Empty() {
        HttpResponse<String> response = get(sim, "/health");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEmpty();
    }

    @Test
    void stats_returnsCountersAsJson() {
        post(sim, "/v1/completions", "{\"prompt\":\"x\",\"max_tokens\":1}");

        JsonNode stats = json(get(sim, "/sim/stats").body());

        assertThat(stats.get("requests").asLong()).isPositive();
        assertThat(stats.fieldNames()).toIterable() // then embedding_inputs, once other tests embedded
                .startsWith("requests", "completed", "cancelled", "errors", "hung", "active", "queued");
    }

    @Test
    void stats_countEmbeddingInputs_itemByItem() {
        long before = sim.stats().embeddingInputs();
        post(sim, "/v1/embeddings", "{\"model\":\"llama-3.1-8b\",\"input\":[\"a\",\"b\",\"a\"]}");
        post(sim, "/v1/embeddings", "{\"model\":\"llama-3.1-8b\",\"input\":[1,2,3]}"); // one token array

        assertThat(json(get(sim, "/sim/stats").body()).get("embedding_inputs").asLong()).isEqualTo(before + 4);
        assertThat(sim.stats().embeddingInputs()).isEqualTo(before + 4);
    }

    @Test
    void unknownPath_returns404() {
        HttpResponse<String> response = get(sim, "/v1/nope");

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(json(response.body()).get("error").get("code").asInt()).isEqualTo(404);
    }

    @Test
    void wrongMethod_returns405() {
        HttpResponse<String> response = get(sim, "/v1/chat/completions");
        HttpResponse<String> post = TestHttp.send(HttpRequest.newBuilder(TestHttp.uri(sim, "/v1/models"))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build());

        assertThat(response.statusCode()).isEqualTo(405);
        assertThat(response.headers().firstValue("allow")).hasValue("POST");
        assertThat(post.statusCode()).isEqualTo(405);
    }

    @Test
    void everyAnswer_carriesTheBackendsOwnHeaders_likeARealServer() {
        HttpResponse<String> answer = post(sim, "/v1/completions", "{\"prompt\":\"hi\",\"max_tokens\":2}");
        HttpResponse<String> error = get(sim, "/v1/chat/completions");

        for (HttpResponse<String> r : List.of(answer, error)) {
            assertThat(r.headers().firstValue("server")).hasValue("uvicorn");
            assertThat(r.headers().firstValue("date")).isPresent();
            assertThat(r.headers().firstValue("x-ratelimit-limit-requests")).hasValue("" + (256 + 10_000));
            assertThat(r.headers().firstValue("x-ratelimit-remaining-requests")).isPresent();
        }
    }
}
