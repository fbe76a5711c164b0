package io.cachegate.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Helpers shared by the streaming tests: parsing, feeding and comparing documents. */
final class StreamJson {

    static final ObjectMapper JSON = new ObjectMapper();

    private StreamJson() {
    }

    static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonNode parse(byte[] json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] concat(List<byte[]> events) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        events.forEach(out::writeBytes);
        return out.toByteArray();
    }

    static StreamAssembler assembleAtOnce(byte[] body) {
        StreamAssembler assembler = new StreamAssembler(1 << 20);
        assembler.feed(body, 0, body.length);
        return assembler;
    }

    static StreamAssembler assembleByteByByte(byte[] body) {
        StreamAssembler assembler = new StreamAssembler(1 << 20);
        for (int i = 0; i < body.length; i++) {
            assembler.feed(body, i, 1);
        }
        return assembler;
    }

    static JsonNode document(StreamAssembler assembler) {
        return parse(assembler.completeDocument().orElseThrow(
                () -> new AssertionError("no document: " + assembler.failureReason().orElse("incomplete"))));
    }

    /**
     * The document without what a stream cannot carry or a replay drops: null-valued fields (vLLM's
     * {@code stop_reason: null}, {@code prompt_logprobs}, usage details), empty arrays such as
     * vLLM's {@code "tool_calls": []}, and, when {@code keepUsage} is false, the usage.
     */
    static JsonNode comparable(JsonNode document, boolean keepUsage) {
        JsonNode copy = document.deepCopy();
        if (!keepUsage) {
            ((ObjectNode) copy).remove("usage");
        }
        prune(copy);
        return copy;
    }

    /** Asserts two documents are the same answer, compared as {@link #comparable} with the usage. */
    static void assertSameAnswer(JsonNode actual, String expected) {
        assertThat(comparable(actual, true)).isEqualTo(comparable(parse(expected), true));
    }

    private static void prune(JsonNode node) {
        if (node instanceof ObjectNode object) {
            List<String> empty = new ArrayList<>();
            for (Map.Entry<String, JsonNode> field : object.properties()) {
                prune(field.getValue());
                if (field.getValue().isNull() || field.getValue().isArray() && field.getValue().isEmpty()) {
                    empty.add(field.getKey());
                }
            }
            object.remove(empty);
        } else if (node instanceof ArrayNode array) {
            array.forEach(StreamJson::prune);
        }
    }
}
