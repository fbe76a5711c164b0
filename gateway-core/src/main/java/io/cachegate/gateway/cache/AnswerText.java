package io.cachegate.gateway.cache;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cachegate.cache.exact.ResponsesText;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The text a person reads in an answer, for the access log with {@code include_text} and for comparing a served
 * answer with a fresh one: the choices' message content or completion text of a JSON answer (a response's
 * output text), or the deltas of an SSE stream joined. An answer cut short (the
 * log keeps 64 KiB) gives the text of its complete events; a JSON answer cut short gives none.
 */
public final class AnswerText {

    private static final ObjectMapper JSON = new ObjectMapper();

    private AnswerText() {
    }

    /** The answer's text; empty when it holds none (an embedding, an unreadable body). */
    public static String of(byte[] body) {
        int start = 0;
        while (start < body.length && Character.isWhitespace(body[start])) {
            start++;
        }
        StringBuilder out = new StringBuilder();
        if (start < body.length && body[start] == '{') {
            try {
                JsonNode answer = JSON.readTree(body, start, body.length - start);
                if (answer != null && "response".equals(answer.path("object").asText())) {
                    return ResponsesText.of(answer);
                }
                choices(answer, "message", out);
            } catch (IOException e) {
                return ""; // cut short or not JSON
            }
            return out.toString();
        }
        for (String line : new String(body, StandardCharsets.UTF_8).split("\n")) {
            if (line.startsWith("data:") && !line.contains("[DONE]")) {
                try {
                    JsonNode event = JSON.readTree(line.substring(5).trim());
                    if (event != null && "response.output_text.delta".equals(event.path("type").asText())) {
                        out.append(event.path("delta").asText("")); // a Responses API stream
                    } else {
                        choices(event, "delta", out);
                    }
                } catch (IOException e) {
                    // the last event, cut short: the text so far is what there is
                }
            }
        }
        return out.toString();
    }

    private static void choices(JsonNode answer, String part, StringBuilder out) {
        if (answer == null) {
            return;
        }
        for (JsonNode choice : answer.path("choices")) {
            JsonNode content = choice.path(part).path("content");
            JsonNode text = content.isTextual() ? content : choice.path("text");
            if (text.isTextual()) {
                if (part.equals("message") && !out.isEmpty()) {
                    out.append('\n'); // choices of n > 1, one after another
                }
                out.append(text.textValue());
            }
        }
    }
}
