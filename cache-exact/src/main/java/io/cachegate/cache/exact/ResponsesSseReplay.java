package io.cachegate.cache.exact;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Replays a stored Responses API answer as the event stream OpenAI and vLLM send for {@code stream: true}:
 * {@code response.created}, {@code response.in_progress}, then per output item {@code output_item.added}, its
 * parts ({@code content_part.added}, {@code output_text.delta}s, {@code output_text.done},
 * {@code content_part.done}) or function-call argument deltas, {@code output_item.done}, and last
 * {@code response.completed} (or {@code response.incomplete}) carrying the stored object. Each event is
 * {@code event: <type>} plus {@code data: <json>} with a {@code sequence_number}; there is no {@code [DONE]}.
 * Text is cut as {@link SseReplay} cuts it, at word boundaries.
 */
public final class ResponsesSseReplay {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JSON.getNodeFactory();

    /** Built first, encoded at the end: an event is filled in after it is numbered. */
    private final List<ObjectNode> pending = new ArrayList<>();
    private int sequence;

    private ResponsesSseReplay() {
    }

    /**
     * Whether {@link #events} can replay the document: a completed or incomplete {@code response} whose items are
     * messages (with {@code output_text} or {@code refusal} parts, without logprobs) or anything else with an id
     * (function calls, reasoning), each given back whole.
     */
    public static boolean canReplay(JsonNode document) {
        if (!"response".equals(document.path("object").asText()) || !document.path("id").isTextual()
                || !document.path("output").isArray()) {
            return false;
        }
        String status = document.path("status").asText();
        if (!status.equals("completed") && !status.equals("incomplete")) {
            return false;
        }
        for (JsonNode item : document.path("output")) {
            if (!item.path("id").isTextual() || !item.path("type").isTextual()) {
                return false;
            }
            if (item.path("type").asText().equals("message") && !replayableParts(item.path("content"))) {
                return false;
            }
        }
        return true;
    }

    /**
     * The events, each {@code event: <type>\ndata: <json>\n\n}.
     *
     * @throws IllegalArgumentException if {@link #canReplay} is false for the document
     */
    public static List<byte[]> events(JsonNode document) {
        if (!canReplay(document)) {
            throw new IllegalArgumentException("not a replayable response");
        }
        ResponsesSseReplay replay = new ResponsesSseReplay();
        ObjectNode started = ((ObjectNode) document).deepCopy();
        started.put("status", "in_progress");
        started.putArray("output");
        started.putNull("usage");
        started.putNull("incomplete_details");
        replay.add("response.created").set("response", started);
        replay.add("response.in_progress").set("response", started);
        int index = 0;
        for (JsonNode item : document.path("output")) {
            replay.item(item, index++);
        }
        String last = document.path("status").asText().equals("completed") ? "response.completed"
                : "response.incomplete";
        replay.add(last).set("response", document);
        List<byte[]> encoded = new ArrayList<>(replay.pending.size());
        replay.pending.forEach(event -> encoded.add(encode(event)));
        return encoded;
    }

    private void item(JsonNode item, int outputIndex) {
        String type = item.path("type").asText();
        ObjectNode opened = ((ObjectNode) item).deepCopy();
        if (item.has("status")) {
            opened.put("status", "in_progress");
        }
        if (type.equals("message")) {
            opened.putArray("content");
        } else if (type.equals("function_call")) {
            opened.put("arguments", "");
        }
        add("response.output_item.added").put("output_index", outputIndex).set("item", opened);
        String itemId = item.path("id").textValue();
        if (type.equals("message")) {
            int contentIndex = 0;
            for (JsonNode part : item.path("content")) {
                part(itemId, outputIndex, contentIndex++, part);
            }
        } else if (type.equals("function_call")) {
            String arguments = item.path("arguments").asText("");
            for (String piece : SseReplay.pieces(arguments)) {
                add("response.function_call_arguments.delta").put("item_id", itemId).put("output_index", outputIndex)
                        .put("delta", piece);
            }
            add("response.function_call_arguments.done").put("item_id", itemId).put("output_index", outputIndex)
                    .put("name", item.path("name").asText("")).put("arguments", arguments);
        }
        add("response.output_item.done").put("output_index", outputIndex).set("item", item);
    }

    private void part(String itemId, int outputIndex, int contentIndex, JsonNode part) {
        boolean text = part.path("type").asText().equals("output_text");
        String field = text ? "text" : "refusal";
        String value = part.path(field).textValue();
        ObjectNode empty = ((ObjectNode) part).deepCopy().put(field, "");
        located(add("response.content_part.added"), itemId, outputIndex, contentIndex).set("part", empty);
        String kind = text ? "response.output_text" : "response.refusal";
        for (String piece : SseReplay.pieces(value)) {
            ObjectNode delta = located(add(kind + ".delta"), itemId, outputIndex, contentIndex).put("delta", piece);
            if (text) {
                delta.putArray("logprobs");
            }
        }
        ObjectNode done = located(add(kind + ".done"), itemId, outputIndex, contentIndex).put(field, value);
        if (text) {
            done.putArray("logprobs");
        }
        located(add("response.content_part.done"), itemId, outputIndex, contentIndex).set("part", part);
    }

    private static ObjectNode located(ObjectNode event, String itemId, int outputIndex, int contentIndex) {
        return event.put("item_id", itemId).put("output_index", outputIndex).put("content_index", contentIndex);
    }

    /** A new event of {@code type}, numbered; the caller fills it in before the list is read. */
    private ObjectNode add(String type) {
        ObjectNode event = NODES.objectNode().put("type", type).put("sequence_number", sequence++);
        pending.add(event);
        return event;
    }

    private static boolean replayableParts(JsonNode content) {
        if (!content.isArray()) {
            return false;
        }
        for (JsonNode part : content) {
            String type = part.path("type").asText();
            boolean text = type.equals("output_text") && part.path("text").isTextual()
                    && (!part.path("logprobs").isArray() || part.path("logprobs").isEmpty());
            if (!text && !(type.equals("refusal") && part.path("refusal").isTextual())) {
                return false;
            }
        }
        return true;
    }

    private static byte[] encode(ObjectNode event) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try {
            out.write(("event: " + event.path("type").textValue() + "\ndata: ").getBytes(StandardCharsets.UTF_8));
            JSON.writeValue(out, event);
            out.write('\n');
            out.write('\n');
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory cannot fail", e);
        }
        return out.toByteArray();
    }
}
