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
import java.util.Map;

/**
 * Replays a stored non-streaming answer as the SSE chunks of the OpenAI streaming format, so a
 * streaming request can be served from the cache. The text is cut at word boundaries (at most
 * {@value #MAX_PIECE_CHARS} characters a piece), not at the original tokens; with several choices,
 * all are opened, then each is replayed in turn, then all are finished (every chunk names its index).
 */
public final class SseReplay {

    /** Long enough to keep the event count low, short enough that a client still renders progressively. */
    static final int MAX_PIECE_CHARS = 32;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JSON.getNodeFactory();
    private static final byte[] DATA = "data: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] END = "\n\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DONE = "data: [DONE]\n\n".getBytes(StandardCharsets.US_ASCII);

    private final JsonNode document;
    private final boolean includeUsage;
    private final List<byte[]> events = new ArrayList<>();

    private SseReplay(JsonNode document, boolean includeUsage) {
        this.document = document;
        this.includeUsage = includeUsage;
    }

    /**
     * Whether {@link #events} can replay this document: a {@code chat.completion} or
     * {@code text_completion} with the fields the chunk format needs. Documents with logprobs are
     * refused because the pieces of a replay do not match the tokens the logprobs describe.
     */
    public static boolean canReplay(JsonNode document) {
        String object = document.path("object").asText();
        boolean chat = object.equals("chat.completion");
        if (!chat && !object.equals("text_completion")
                || !document.path("id").isTextual() || !document.path("model").isTextual()
                || !document.path("created").isIntegralNumber() || !document.path("choices").isArray()) {
            return false;
        }
        for (JsonNode choice : document.path("choices")) {
            if (!choice.path("index").isIntegralNumber() || !choice.path("finish_reason").isTextual()
                    || choice.hasNonNull("logprobs")) {
                return false;
            }
            if (chat ? !replayableMessage(choice.path("message")) : !choice.path("text").isTextual()) {
                return false;
            }
        }
        return true;
    }

    /**
     * The SSE events, each {@code data: <chunk>\n\n}, the last {@code data: [DONE]\n\n}. With
     * {@code includeUsage}, every chunk carries {@code "usage":null} and a last {@code "choices":[]}
     * chunk carries the stored usage (omitted if none was stored), as OpenAI does for
     * {@code stream_options.include_usage}.
     *
     * @throws IllegalArgumentException if {@link #canReplay} is false for the document
     */
    public static List<byte[]> events(JsonNode document, boolean includeUsage) {
        if (!canReplay(document)) {
            throw new IllegalArgumentException("not a replayable chat.completion or text_completion");
        }
        SseReplay replay = new SseReplay(document, includeUsage);
        boolean chat = document.path("object").asText().equals("chat.completion");
        JsonNode choices = document.path("choices");
        // Open every choice before any finishes: the Java SDK's accumulator finalises the answer as soon
        // as every choice it has seen so far has a finish reason.
        if (chat) {
            choices.forEach(replay::chatOpening);
        }
        choices.forEach(chat ? replay::chatBody : replay::textBody);
        choices.forEach(chat ? replay::chatFinish : replay::textFinish);
        if (includeUsage && document.path("usage").isObject()) {
            ObjectNode chunk = replay.header(chat);
            chunk.putArray("choices");
            chunk.set("usage", document.get("usage"));
            replay.events.add(encode(chunk));
        }
        replay.events.add(DONE.clone());
        return replay.events;
    }

    private void chatOpening(JsonNode choice) {
        JsonNode message = choice.path("message");
        ObjectNode role = NODES.objectNode().put("role", message.path("role").asText("assistant"));
        // content null stays null (OpenAI's first chunk of a tool call answer), so a round trip keeps it.
        role.put("content", message.path("content").isTextual() ? "" : null);
        chatChunk(choice, role, false);
    }

    private void chatBody(JsonNode choice) {
        JsonNode message = choice.path("message");
        for (Map.Entry<String, JsonNode> field : message.properties()) {
            String name = field.getKey();
            if (field.getValue().isTextual() && !name.equals("role") && !name.equals("content")
                    && !name.equals("refusal")) {
                for (String piece : pieces(field.getValue().textValue())) {
                    chatChunk(choice, NODES.objectNode().put(name, piece), false);
                }
            }
        }
        for (String piece : pieces(message.path("content").asText(""))) {
            chatChunk(choice, NODES.objectNode().put("content", piece), false);
        }
        for (String piece : pieces(message.path("refusal").asText(""))) {
            chatChunk(choice, NODES.objectNode().put("refusal", piece), false);
        }
        int callIndex = 0;
        for (JsonNode call : message.path("tool_calls")) {
            JsonNode function = call.path("function");
            ObjectNode first = NODES.objectNode().put("index", callIndex);
            if (call.path("id").isTextual()) {
                first.put("id", call.path("id").textValue());
            }
            first.put("type", call.path("type").asText("function"));
            first.putObject("function").put("name", function.path("name").asText("")).put("arguments", "");
            chatChunk(choice, toolCallDelta(first), false);
            for (String piece : pieces(function.path("arguments").asText(""))) {
                ObjectNode next = NODES.objectNode().put("index", callIndex);
                next.putObject("function").put("arguments", piece);
                chatChunk(choice, toolCallDelta(next), false);
            }
            callIndex++;
        }
    }

    private void chatFinish(JsonNode choice) {
        chatChunk(choice, NODES.objectNode(), true);
    }

    private void textBody(JsonNode choice) {
        for (String piece : pieces(choice.path("text").textValue())) {
            ObjectNode element = NODES.objectNode().put("index", choice.path("index").intValue()).put("text", piece);
            element.putNull("logprobs");
            element.putNull("finish_reason");
            add(false, element);
        }
    }

    private void textFinish(JsonNode choice) {
        ObjectNode last = NODES.objectNode().put("index", choice.path("index").intValue()).put("text", "");
        last.putNull("logprobs");
        add(false, finish(last, choice));
    }

    /** One chat chunk of the stored {@code choice}; the last one of a choice carries its finish reason. */
    private void chatChunk(JsonNode choice, ObjectNode delta, boolean last) {
        ObjectNode element = NODES.objectNode().put("index", choice.path("index").intValue());
        element.set("delta", delta);
        element.putNull("logprobs");
        if (last) {
            finish(element, choice);
        } else {
            element.putNull("finish_reason");
        }
        add(true, element);
    }

    private static ObjectNode finish(ObjectNode element, JsonNode stored) {
        element.set("finish_reason", stored.get("finish_reason"));
        if (stored.hasNonNull("stop_reason")) {
            element.set("stop_reason", stored.get("stop_reason")); // vLLM's stop string or token id
        }
        return element;
    }

    private static ObjectNode toolCallDelta(ObjectNode call) {
        ObjectNode delta = NODES.objectNode();
        delta.putArray("tool_calls").add(call);
        return delta;
    }

    private void add(boolean chat, ObjectNode choiceElement) {
        ObjectNode chunk = header(chat);
        chunk.putArray("choices").add(choiceElement);
        if (includeUsage) {
            chunk.putNull("usage");
        }
        events.add(encode(chunk));
    }

    private ObjectNode header(boolean chat) {
        ObjectNode chunk = NODES.objectNode();
        chunk.set("id", document.get("id"));
        chunk.put("object", chat ? "chat.completion.chunk" : "text_completion");
        chunk.set("created", document.get("created"));
        chunk.set("model", document.get("model"));
        if (document.path("system_fingerprint").isTextual()) {
            chunk.set("system_fingerprint", document.get("system_fingerprint"));
        }
        return chunk;
    }

    /**
     * Cuts text before each run of whitespace that follows a word (" world" travels with its
     * space, as tokens do) and after {@value #MAX_PIECE_CHARS} characters, never inside a
     * surrogate pair.
     */
    static List<String> pieces(String text) {
        List<String> pieces = new ArrayList<>();
        int start = 0;
        int length = text.length();
        while (start < length) {
            int end = start;
            while (end < length && end - start < MAX_PIECE_CHARS && Character.isWhitespace(text.charAt(end))) {
                end++;
            }
            while (end < length && end - start < MAX_PIECE_CHARS && !Character.isWhitespace(text.charAt(end))) {
                end++;
            }
            if (end < length && Character.isLowSurrogate(text.charAt(end))
                    && Character.isHighSurrogate(text.charAt(end - 1))) {
                end--;
            }
            pieces.add(text.substring(start, end));
            start = end;
        }
        return pieces;
    }

    private static boolean replayableMessage(JsonNode message) {
        if (!message.isObject() || !isTextOrAbsent(message.path("content"))
                || !isTextOrAbsent(message.path("refusal"))) {
            return false;
        }
        JsonNode calls = message.path("tool_calls");
        if (calls.isMissingNode() || calls.isNull()) {
            return true;
        }
        if (!calls.isArray()) {
            return false;
        }
        for (JsonNode call : calls) {
            JsonNode function = call.path("function");
            if (!function.isObject() || !function.path("name").isTextual()
                    || !isTextOrAbsent(function.path("arguments"))) {
                return false;
            }
        }
        return true;
    }

    private static boolean isTextOrAbsent(JsonNode value) {
        return value.isTextual() || value.isMissingNode() || value.isNull();
    }

    private static byte[] encode(ObjectNode chunk) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try {
            out.write(DATA);
            JSON.writeValue(out, chunk);
            out.write(END);
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory cannot fail", e);
        }
        return out.toByteArray();
    }
}
