package io.cachegate.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link ResponsesSseReplay} and {@link ResponsesStreamAssembler}, each checked against the other and alone. */
class ResponsesStreamTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TEXT = "Caching proxies answer repeated questions from memory, fast.";

    static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonNode response(String status, String outputItems) {
        return json("{\"id\":\"resp_1\",\"object\":\"response\",\"created_at\":1700000000,\"model\":\"m\","
                + "\"status\":\"" + status + "\",\"error\":null,\"incomplete_details\":"
                + (status.equals("incomplete") ? "{\"reason\":\"max_output_tokens\"}" : "null")
                + ",\"output\":[" + outputItems + "],\"usage\":{\"input_tokens\":3,\"output_tokens\":9,"
                + "\"total_tokens\":12}}");
    }

    static String message(String text) {
        return "{\"id\":\"msg_1\",\"type\":\"message\",\"status\":\"completed\",\"role\":\"assistant\",\"content\":"
                + "[{\"type\":\"output_text\",\"text\":" + JSON.getNodeFactory().textNode(text) + ",\"annotations\":[]}]}";
    }

    private static byte[] stream(List<byte[]> events) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        events.forEach(out::writeBytes);
        return out.toByteArray();
    }

    private static List<JsonNode> parsed(List<byte[]> events) {
        List<JsonNode> out = new ArrayList<>();
        for (byte[] event : events) {
            String[] lines = new String(event, StandardCharsets.UTF_8).split("\n");
            assertThat(lines[0]).startsWith("event: ");
            JsonNode data = json(lines[1].substring("data: ".length()));
            assertThat(data.path("type").asText()).isEqualTo(lines[0].substring("event: ".length()));
            out.add(data);
        }
        return out;
    }

    @Test
    void events_messageAnswer_inOpenAiOrder_deltasJoinToTheText() {
        List<JsonNode> events = parsed(ResponsesSseReplay.events(response("completed", message(TEXT))));

        List<String> types = events.stream().map(e -> e.path("type").asText()).toList();
        assertThat(types).startsWith("response.created", "response.in_progress", "response.output_item.added",
                "response.content_part.added", "response.output_text.delta");
        assertThat(types.subList(types.size() - 4, types.size())).containsExactly("response.output_text.done",
                "response.content_part.done", "response.output_item.done", "response.completed");
        StringBuilder deltas = new StringBuilder();
        for (int i = 0; i < events.size(); i++) {
            assertThat(events.get(i).path("sequence_number").asInt()).isEqualTo(i);
            if (types.get(i).equals("response.output_text.delta")) {
                deltas.append(events.get(i).path("delta").asText());
                assertThat(events.get(i).path("item_id").asText()).isEqualTo("msg_1");
            }
        }
        assertThat(deltas.toString()).isEqualTo(TEXT);
        assertThat(types.stream().filter(t -> t.endsWith(".delta")).count()).isGreaterThan(1);
        assertThat(events.get(0).path("response").path("status").asText()).isEqualTo("in_progress");
        assertThat(events.get(0).path("response").path("output")).isEmpty();
        assertThat(events.get(events.size() - 1).path("response")).isEqualTo(response("completed", message(TEXT)));
    }

    @Test
    void replayThenAssemble_givesBackTheStoredDocument() {
        JsonNode stored = response("completed", message(TEXT) + ",{\"id\":\"fc_1\",\"type\":\"function_call\","
                + "\"status\":\"completed\",\"call_id\":\"c1\",\"name\":\"lookup\",\"arguments\":\"{\\\"q\\\": \\\"a b c\\\"}\"}");
        byte[] body = stream(ResponsesSseReplay.events(stored));

        // fed one byte at a time: event boundaries anywhere
        AnswerAssembler assembler = Dialect.RESPONSES.assembler(1 << 20);
        for (int i = 0; i < body.length; i++) {
            assembler.feed(body, i, 1);
        }

        assertThat(json(new String(assembler.completeDocument().orElseThrow(), StandardCharsets.UTF_8)))
                .isEqualTo(stored);
        assertThat(parsed(ResponsesSseReplay.events(stored)).stream().map(e -> e.path("type").asText()))
                .contains("response.function_call_arguments.delta", "response.function_call_arguments.done");
    }

    @Test
    void events_incomplete_endsWithResponseIncomplete() {
        List<JsonNode> events = parsed(ResponsesSseReplay.events(response("incomplete", message(TEXT))));

        assertThat(events.get(events.size() - 1).path("type").asText()).isEqualTo("response.incomplete");
    }

    @Test
    void canReplay_refusesWhatAReplayWouldGetWrong() {
        assertThat(ResponsesSseReplay.canReplay(response("completed", message(TEXT)))).isTrue();
        assertThat(ResponsesSseReplay.canReplay(response("in_progress", message(TEXT)))).isFalse();
        assertThat(ResponsesSseReplay.canReplay(json("{\"object\":\"chat.completion\",\"id\":\"x\"}"))).isFalse();
        assertThat(ResponsesSseReplay.canReplay(response("completed", message(TEXT).replace("\"annotations\":[]",
                "\"logprobs\":[{\"token\":\"a\",\"logprob\":-1}]")))).as("logprobs").isFalse();
        assertThat(ResponsesSseReplay.canReplay(response("completed", message(TEXT).replace("\"id\":\"msg_1\",", ""))))
                .as("an item without an id").isFalse();
        assertThatThrownBy(() -> ResponsesSseReplay.events(json("{}"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void assembler_deltasThatDifferFromTheFinalText_storeNothing() {
        String body = new String(stream(ResponsesSseReplay.events(response("completed", message(TEXT)))),
                StandardCharsets.UTF_8).replace("\"delta\":\"Caching\"", "\"delta\":\"Cashing\"");
        assertThat(body).contains("Cashing");

        assertThat(assemble(body, 1 << 20)).isEmpty();
    }

    @Test
    void assembler_errorOrFailedEvent_storesNothing() {
        String created = "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0}\n\n";
        assertThat(assemble(created + "event: error\ndata: {\"type\":\"error\",\"message\":\"boom\"}\n\n", 1 << 20))
                .isEmpty();
        assertThat(assemble(created + "event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":"
                + response("failed", "") + "}\n\n", 1 << 20)).isEmpty();
        assertThat(assemble(created, 1 << 20)).as("cut before its terminal event").isEmpty();
        assertThat(assemble("event: response.created\ndata: {\"type\":\"response.in_progress\"}\n\n"
                + new String(stream(ResponsesSseReplay.events(response("completed", message(TEXT)))),
                StandardCharsets.UTF_8), 1 << 20)).as("event name and type differ").isEmpty();
    }

    @Test
    void assembler_overItsBound_storesNothing() {
        String body = new String(stream(ResponsesSseReplay.events(response("completed", message(TEXT)))),
                StandardCharsets.UTF_8);

        assertThat(assemble(body, body.length())).isPresent();
        assertThat(assemble(body, body.length() - 1)).isEmpty();
    }

    @Test
    void storable_readsTheStatusAsAFinishReason() {
        Set<String> stop = Set.of("stop");
        assertThat(StorePolicy.storable(200, response("completed", message(TEXT)), stop)).isTrue();
        assertThat(StorePolicy.storable(200, response("incomplete", message(TEXT)), stop)).isFalse();
        assertThat(StorePolicy.storable(200, response("incomplete", message(TEXT)), Set.of("stop", "length"))).isTrue();
        assertThat(StorePolicy.storable(200, response("failed", message(TEXT)), Set.of("stop", "length"))).isFalse();
        assertThat(StorePolicy.storable(200, response("completed", ""), stop)).as("no output").isFalse();
        assertThat(StorePolicy.storable(500, response("completed", message(TEXT)), stop)).isFalse();
        JsonNode call = response("completed", "{\"id\":\"fc_1\",\"type\":\"function_call\",\"name\":\"f\","
                + "\"arguments\":\"{}\"}");
        assertThat(StorePolicy.storable(200, call, stop)).isFalse();
        assertThat(StorePolicy.storable(200, call, Set.of("tool_calls"))).isTrue();
        JsonNode errored = json(response("completed", message(TEXT)).toString()
                .replace("\"error\":null", "\"error\":{\"code\":\"server_error\"}"));
        assertThat(StorePolicy.storable(200, errored, stop)).isFalse();
    }

    private static java.util.Optional<byte[]> assemble(String body, int maxBytes) {
        AnswerAssembler assembler = Dialect.RESPONSES.assembler(maxBytes);
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        assembler.feed(bytes, 0, bytes.length);
        return assembler.completeDocument();
    }
}
