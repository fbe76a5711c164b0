package io.cachegate.simulator;

import static io.cachegate.simulator.TestHttp.json;
import static io.cachegate.simulator.TestHttp.post;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ResponsesTest {

    private static final String RESPONSES = "/v1/responses";
    private static BackendSimulator sim;

    @BeforeAll
    static void start() {
        sim = BackendSimulator.start(SimulatorOptions.defaults().withDefaultMaxTokens(12));
    }

    @AfterAll
    static void stop() {
        sim.close();
    }

    @Test
    void responses_nonStreaming_returnsResponseObjectWithUsage() {
        HttpResponse<String> response = post(sim, RESPONSES, "{\"model\":\"llama-3.1-8b\",\"instructions\":\"be brief\","
                + "\"input\":\"what is the capital of France\",\"temperature\":0,\"metadata\":{\"app\":\"x\"}}");

        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode body = json(response.body());
        assertThat(body.get("id").asText()).matches("resp_[0-9a-f]{32}");
        assertThat(body.get("object").asText()).isEqualTo("response");
        assertThat(body.get("status").asText()).isEqualTo("completed");
        assertThat(body.get("created_at").asLong()).isPositive();
        assertThat(body.get("instructions").asText()).isEqualTo("be brief");
        assertThat(body.get("metadata").get("app").asText()).isEqualTo("x");
        assertThat(body.get("temperature").asDouble()).isZero();
        JsonNode message = body.get("output").get(0);
        assertThat(message.get("type").asText()).isEqualTo("message");
        assertThat(message.get("role").asText()).isEqualTo("assistant");
        assertThat(message.get("content").get(0).get("type").asText()).isEqualTo("output_text");
        assertThat(message.get("content").get(0).get("text").asText().split(" ")).hasSize(13); // leading space
        assertThat(body.get("usage").get("input_tokens").asInt()).isEqualTo(8);
        assertThat(body.get("usage").get("output_tokens").asInt()).isEqualTo(12);
        assertThat(body.get("usage").get("total_tokens").asInt()).isEqualTo(20);
    }

    @Test
    void responses_maxOutputTokens_isIncomplete() {
        JsonNode body = json(post(sim, RESPONSES, "{\"model\":\"llama-3.1-8b\",\"input\":[{\"role\":\"user\","
                + "\"content\":[{\"type\":\"input_text\",\"text\":\"hello there\"}]}],\"max_output_tokens\":3}").body());

        assertThat(body.get("status").asText()).isEqualTo("incomplete");
        assertThat(body.get("incomplete_details").get("reason").asText()).isEqualTo("max_output_tokens");
        assertThat(body.get("usage").get("output_tokens").asInt()).isEqualTo(3);
    }

    @Test
    void responses_streaming_eventsInOrder_deltasEqualNonStreamedText() {
        String request = "{\"model\":\"llama-3.1-8b\",\"input\":\"tell me a story\",\"temperature\":0";
        JsonNode whole = json(post(sim, RESPONSES, request + "}").body());
        HttpResponse<String> streamed = post(sim, RESPONSES, request + ",\"stream\":true}");

        assertThat(streamed.headers().firstValue("content-type").orElse("")).startsWith("text/event-stream");
        List<String> names = new ArrayList<>();
        List<JsonNode> events = new ArrayList<>();
        for (String block : streamed.body().split("\n\n")) {
            String[] lines = block.split("\n");
            assertThat(lines).hasSize(2);
            names.add(lines[0].substring("event: ".length()));
            events.add(json(lines[1].substring("data: ".length())));
        }
        assertThat(names).startsWith("response.created", "response.in_progress", "response.output_item.added",
                "response.content_part.added", "response.output_text.delta");
        assertThat(names.subList(names.size() - 4, names.size())).containsExactly("response.output_text.done",
                "response.content_part.done", "response.output_item.done", "response.completed");
        StringBuilder deltas = new StringBuilder();
        for (int i = 0; i < events.size(); i++) {
            assertThat(events.get(i).get("type").asText()).isEqualTo(names.get(i));
            assertThat(events.get(i).get("sequence_number").asInt()).isEqualTo(i);
            if (names.get(i).equals("response.output_text.delta")) {
                deltas.append(events.get(i).get("delta").asText());
            }
        }
        String text = whole.get("output").get(0).get("content").get(0).get("text").asText();
        assertThat(deltas.toString()).isEqualTo(text).isNotBlank();
        JsonNode completed = events.get(events.size() - 1).get("response");
        assertThat(completed.get("output")).isEqualTo(whole.get("output"));
        assertThat(completed.get("usage")).isEqualTo(whole.get("usage"));
        assertThat(streamed.body()).doesNotContain("[DONE]");
    }

    @Test
    void responses_unknownModel_is404LikeChat() {
        HttpResponse<String> response = post(sim, RESPONSES, "{\"model\":\"gpt-unknown\",\"input\":\"hi\"}");

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(json(response.body()).get("error").get("message").asText()).contains("gpt-unknown");
    }

    @Test
    void responses_withoutInput_is400() {
        HttpResponse<String> response = post(sim, RESPONSES, "{\"model\":\"llama-3.1-8b\"}");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(json(response.body()).get("error").get("param").asText()).isEqualTo("input");
    }
}
