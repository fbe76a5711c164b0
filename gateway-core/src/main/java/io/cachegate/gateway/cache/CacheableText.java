package io.cachegate.gateway.cache;

import com.fasterxml.jackson.databind.JsonNode;
import io.cachegate.gateway.api.OpenAiRequest;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The text of a request or an answer that caching would keep, gathered for the sensitive-data scan: every string
 * under the messages (all roles, content parts, names, tool-call arguments), the prompt or the input (a Responses
 * request's {@code instructions} and {@code input} are its messages), the tool and function definitions (names,
 * descriptions, parameter schemas), a predicted output and a response format's schema; and under an answer's
 * choices. Fields that only label or format things (role, type, ids) and media (image and audio data, files) are
 * left out: they are not text a person wrote, and base64 media would cost time and look like noise.
 *
 * <p>Strings are joined by newlines, so no match runs from one string into the next except a number, which the
 * detector lets continue over one line break: a card split over two messages is still one card. Message names
 * come after all the messages, so they never stand between two halves.
 */
final class CacheableText {

    private static final Set<String> SKIPPED = Set.of("role", "type", "id", "tool_call_id", "finish_reason",
            "index", "logprobs", "status", "image_url", "input_audio", "audio", "file", "detail", "format");
    /** Request fields beside the messages whose strings are kept with the request (in the key, sent on a miss). */
    private static final List<String> DEFINITIONS = List.of("tools", "functions", "prediction", "response_format");
    /** Deeper than any message format nests; the parser's own depth limit keeps hostile bodies far below it. */
    private static final int MAX_DEPTH = 32;

    private CacheableText() {
    }

    /** The request's messages, prompt or input ({@code OpenAiRequest.input()}) and definitions, one string a line. */
    static String ofRequest(OpenAiRequest request) {
        StringBuilder out = new StringBuilder(256);
        StringBuilder names = new StringBuilder();
        append(request.input(), out, names, 0);
        out.append(names);
        for (String field : DEFINITIONS) {
            append(request.body().get(field), out, out, 0);
        }
        return out.toString();
    }

    /** The text of an answer's choices (chat messages, tool calls, completion text); empty for embeddings. */
    static String ofAnswer(JsonNode answer) {
        StringBuilder out = new StringBuilder(256);
        append(answer.path("choices"), out, out, 0);
        append(answer.path("output"), out, out, 0); // a Responses API answer
        return out.toString();
    }

    /** The strings under {@code node} into {@code out}, those of {@code name} fields into {@code names}. */
    private static void append(JsonNode node, StringBuilder out, StringBuilder names, int depth) {
        if (node == null || depth > MAX_DEPTH) {
            return;
        }
        if (node.isTextual()) {
            out.append(node.textValue()).append('\n');
        } else if (node.isArray()) {
            for (JsonNode item : node) {
                append(item, out, names, depth + 1);
            }
        } else if (node.isObject()) {
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                String key = field.getKey();
                if (!SKIPPED.contains(key)) {
                    append(field.getValue(), key.equals("name") ? names : out, names, depth + 1);
                }
            }
        }
    }
}
