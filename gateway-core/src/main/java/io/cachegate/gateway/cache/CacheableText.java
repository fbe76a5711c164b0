package io.cachegate.gateway.cache;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.Set;

/**
 * The text of a request or an answer that caching would keep, gathered for the sensitive-data scan: every string
 * under the messages (all roles, content parts, tool-call arguments), the prompt or the input, and under an
 * answer's choices. Fields that only name or format things (role, type, ids) and media (image and audio data,
 * files) are left out: they are not text a person wrote, and base64 media would cost time and look like noise.
 */
final class CacheableText {

    private static final Set<String> SKIPPED = Set.of("role", "type", "id", "tool_call_id", "name", "finish_reason",
            "index", "logprobs", "status", "image_url", "input_audio", "audio", "file", "detail", "format");
    /** Deeper than any message format nests; the parser's own depth limit keeps hostile bodies far below it. */
    private static final int MAX_DEPTH = 32;

    private CacheableText() {
    }

    /** The request's messages, prompt or input ({@code OpenAiRequest.input()}), strings joined by newlines. */
    static String ofRequest(JsonNode input) {
        StringBuilder out = new StringBuilder(256);
        append(input, out, 0);
        return out.toString();
    }

    /** The text of an answer's choices (chat messages, tool calls, completion text); empty for embeddings. */
    static String ofAnswer(JsonNode answer) {
        StringBuilder out = new StringBuilder(256);
        append(answer.path("choices"), out, 0);
        append(answer.path("output"), out, 0); // a Responses API answer
        return out.toString();
    }

    private static void append(JsonNode node, StringBuilder out, int depth) {
        if (node == null || depth > MAX_DEPTH) {
            return;
        }
        if (node.isTextual()) {
            out.append(node.textValue()).append('\n'); // a newline: no match runs from one string into the next
        } else if (node.isArray()) {
            for (JsonNode item : node) {
                append(item, out, depth + 1);
            }
        } else if (node.isObject()) {
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                if (!SKIPPED.contains(field.getKey())) {
                    append(field.getValue(), out, depth + 1);
                }
            }
        }
    }
}
