package io.cachegate.cache.exact;

import com.fasterxml.jackson.databind.JsonNode;

/** The text of a Responses API answer: every {@code output_text} part of its message items, in order. */
public final class ResponsesText {

    private ResponsesText() {
    }

    /** The joined text; empty when the answer holds none (only function calls, say). */
    public static String of(JsonNode response) {
        StringBuilder text = new StringBuilder();
        for (JsonNode item : response.path("output")) {
            if (!"message".equals(item.path("type").asText())) {
                continue;
            }
            for (JsonNode part : item.path("content")) {
                if ("output_text".equals(part.path("type").asText()) && part.path("text").isTextual()) {
                    text.append(part.path("text").textValue());
                }
            }
        }
        return text.toString();
    }
}
