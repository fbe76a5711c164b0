package io.cachegate.simulator;

import static io.cachegate.simulator.TestHttp.json;
import static io.cachegate.simulator.TestHttp.post;
import static io.cachegate.simulator.TestHttp.sseData;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ChatCompletionsTest {

    private static final String CHAT = "/v1/chat/completions";
    private static BackendSimulator sim;

    @BeforeAll
    static void start() {
        sim = BackendSimulator.start(SimulatorOptions.defaults().withDefaultMaxTokens(12));
    }

    @AfterAll
    static void stop() {
        sim.close();
    }

    private static String chat(String content, String extra) {
        return "{\"model\":\"llama-3.1-8b\",\"messages\":[{\"role\":\"system\",\"content\":\"be brief\"},"
                + "{\"role\":\"user\",\"content\":\"" + content + "\"}],\"temperature\":0" + extra + "}";
    }

    @Test
    void chat_nonStreaming_returnsChatCompletionWithUsage() {
        HttpResponse<String> response = post(sim, CHAT, chat("what is the capital of France", ",\"max_tokens\":5"));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
        JsonNode body = json(response.body());
        assertThat(body.get("id").asText()).matches("chatcmpl-[0-9a-f]{32}");
        assertThat(body.get("object").asText()).isEqualTo("chat.completion");
        assertThat(body.get("created").asLong()).isPositive();
        assertThat(body.get("model").asText()).isEqualTo("llama-3.1-8b");
        JsonNode choice = body.get("choices").get(0);
        assertThat(choice.get("index").asInt()).isZero();
        assertThat(choice.get("message").get("role").asText()).isEqualTo("assistant");
        assertThat(choice.get("message").get("tool_calls").isArray()).isTrue();
        assertThat(choice.get("finish_reason").asText()).isEqualTo("length");
        String content = choice.get("message").get("content").asText();
        assertThat(content.split(" ")).hasSize(6); // leading space, then five words
        assertThat(body.get("usage").get("prompt_tokens").asInt()).isEqualTo(8);
        assertThat(body.get("usage").get("completion_tokens").asInt()).isEqualTo(5);
        assertThat(body.get("usage").get("total_tokens").asInt()).isEqualTo(13);
        assertThat(body.fieldNames()).toIterable()
                .containsExactly("id", "object", "created", "model", "choices", "usage", "prompt_logprobs");
    }

    @Test
    void chat_withoutMaxTokens_usesDefaultAndStops() {
        JsonNode body = json(post(sim, CHAT, chat("hello", "")).body());

        assertThat(body.get("usage").get("completion_tokens").asInt()).isEqualTo(12);
        assertThat(body.get("choices").get(0).get("finish_reason").asText()).isEqualTo("stop");
    }

    @Test
    void chat_maxCompletionTokens_isRespected() {
        JsonNode body = json(post(sim, CHAT, chat("hello", ",\"max_completion_tokens\":3")).body());

        assertThat(body.get("usage").get("completion_tokens").asInt()).isEqualTo(3);
        assertThat(body.get("choices").get(0).get("finish_reason").asText()).isEqualTo("length");
    }

    @Test
    void chat_streaming_deltasEqualNonStreamedContent() {
        String request = chat("tell me a story", ",\"max_tokens\":7");
        JsonNode whole = json(post(sim, CHAT, request).body());

        HttpResponse<String> response = post(sim, CHAT, request.replace("{\"model\"", "{\"stream\":true,\"model\""));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValue("text/event-stream; charset=utf-8");
        List<String> events = sseData(response.body());
        assertThat(events.get(events.size() - 1)).isEqualTo("[DONE]");
        List<JsonNode> chunks = events.subList(0, events.size() - 1).stream().map(TestHttp::json).toList();
        assertThat(chunks).hasSize(1 + 7);
        JsonNode first = chunks.get(0);
        assertThat(first.get("object").asText()).isEqualTo("chat.completion.chunk");
        assertThat(first.get("id").asText()).isEqualTo(whole.get("id").asText());
        assertThat(first.get("choices").get(0).get("delta").toString()).isEqualTo("{\"role\":\"assistant\",\"content\":\"\"}");
        assertThat(first.has("usage")).isFalse();
        StringBuilder content = new StringBuilder();
        for (JsonNode chunk : chunks.subList(1, chunks.size())) {
            JsonNode choice = chunk.get("choices").get(0);
            assertThat(choice.get("logprobs").isNull()).isTrue();
            content.append(choice.get("delta").get("content").asText());
        }
        assertThat(content.toString())
                .isEqualTo(whole.get("choices").get(0).get("message").get("content").asText());
        assertThat(chunks.get(1).get("choices").get(0).get("finish_reason").isNull()).isTrue();
        assertThat(chunks.get(7).get("choices").get(0).get("finish_reason").asText()).isEqualTo("length");
    }

    @Test
    void chat_streamingWithIncludeUsage_endsWithUsageChunk() {
        String request = chat("count to three", ",\"max_tokens\":3,\"stream\":true,\"stream_options\":{\"include_usage\":true}");

        List<String> events = sseData(post(sim, CHAT, request).body());

        assertThat(events).hasSize(1 + 3 + 1 + 1);
        assertThat(events.get(5)).isEqualTo("[DONE]");
        for (String event : events.subList(0, 4)) {
            assertThat(json(event).get("usage").isNull()).isTrue();
        }
        JsonNode usageChunk = json(events.get(4));
        assertThat(usageChunk.get("choices").isEmpty()).isTrue();
        assertThat(usageChunk.get("usage").toString())
                .isEqualTo("{\"prompt_tokens\":5,\"total_tokens\":8,\"completion_tokens\":3}");
    }

    @Test
    void chat_sameRequest_sameTextAndId() {
        String request = chat("same question", ",\"max_tokens\":16");

        JsonNode a = json(post(sim, CHAT, request).body());
        JsonNode b = json(post(sim, CHAT, request.replace("\"temperature\":0", "\"temperature\":0.0")).body());

        assertThat(b.get("id")).isEqualTo(a.get("id"));
        assertThat(b.get("choices")).isEqualTo(a.get("choices"));
    }

    @Test
    void chat_differentRequest_differentText() {
        JsonNode a = json(post(sim, CHAT, chat("question one", ",\"max_tokens\":16")).body());
        JsonNode b = json(post(sim, CHAT, chat("question two", ",\"max_tokens\":16")).body());

        assertThat(b.get("id")).isNotEqualTo(a.get("id"));
        assertThat(b.get("choices").get(0).get("message").get("content"))
                .isNotEqualTo(a.get("choices").get(0).get("message").get("content"));
    }

    @Test
    void chat_nGreaterThanOne_producesDistinctChoices() {
        JsonNode body = json(post(sim, CHAT, chat("options", ",\"max_tokens\":8,\"n\":3")).body());

        assertThat(body.get("choices")).hasSize(3);
        assertThat(body.get("choices").get(2).get("index").asInt()).isEqualTo(2);
        assertThat(body.get("choices").get(0).get("message").get("content"))
                .isNotEqualTo(body.get("choices").get(1).get("message").get("content"));
        assertThat(body.get("usage").get("completion_tokens").asInt()).isEqualTo(24);
    }

    @Test
    void chat_malformedJson_returns400() {
        HttpResponse<String> response = post(sim, CHAT, "{\"model\": \"llama-3.1-8b\", \"messages\": [");

        assertThat(response.statusCode()).isEqualTo(400);
        JsonNode error = json(response.body()).get("error");
        assertThat(error.get("type").asText()).isEqualTo("BadRequestError");
        assertThat(error.get("code").asInt()).isEqualTo(400);
        assertThat(error.has("param")).isTrue();
        assertThat(error.get("message").asText()).isNotBlank();
    }

    @Test
    void chat_unknownModel_returns404() {
        HttpResponse<String> response = post(sim, CHAT, chat("hi", "").replace("llama-3.1-8b", "gpt-17"));

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(json(response.body()).get("error").get("message").asText()).contains("gpt-17");
    }

    @Test
    void chat_invalidMaxTokens_returns400() {
        assertThat(post(sim, CHAT, chat("hi", ",\"max_tokens\":0")).statusCode()).isEqualTo(400);
    }
}
