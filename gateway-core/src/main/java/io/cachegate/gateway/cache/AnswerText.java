package io.cachegate.gateway.cache;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cachegate.cache.exact.Dialect;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The text a person reads in an answer, for the access log with {@code include_text} and for comparing a served
 * answer with a fresh one: what its dialect says a JSON answer's text is, or the text its stream's events add,
 * joined. An answer cut short (the log keeps 64 KiB) gives the text of its complete events; a JSON answer cut short
 * gives none.
 */
public final class AnswerText {

    private static final ObjectMapper JSON = new ObjectMapper();

    private AnswerText() {
    }

    /**
     * The answer's text; empty when it holds none (an embedding, an unreadable body).
     *
     * @param dialect the API the answer is in, or null when its request is not at hand (a stored entry read back,
     *                an audit's fresh answer): a JSON answer then names its own, a stream event by its shape
     */
    public static String of(Dialect dialect, byte[] body) {
        int start = 0;
        while (start < body.length && Character.isWhitespace(body[start])) {
            start++;
        }
        if (start < body.length && body[start] == '{') {
            try {
                JsonNode answer = JSON.readTree(body, start, body.length - start);
                return answer == null ? "" : (dialect != null ? dialect : Dialect.ofAnswer(answer)).answerText(answer);
            } catch (IOException e) {
                return ""; // cut short or not JSON
            }
        }
        StringBuilder out = new StringBuilder();
        for (String line : new String(body, StandardCharsets.UTF_8).split("\n")) {
            if (line.startsWith("data:") && !line.contains("[DONE]")) {
                try {
                    JsonNode event = JSON.readTree(line.substring(5).trim());
                    if (event != null) {
                        out.append((dialect != null ? dialect : ofEvent(event)).deltaText(event));
                    }
                } catch (IOException e) {
                    // the last event, cut short: the text so far is what there is
                }
            }
        }
        return out.toString();
    }

    /** The dialect of a stream event whose request is not at hand: Responses API events are typed. */
    private static Dialect ofEvent(JsonNode event) {
        return event.has("type") ? Dialect.RESPONSES : Dialect.ofAnswer(event);
    }
}
