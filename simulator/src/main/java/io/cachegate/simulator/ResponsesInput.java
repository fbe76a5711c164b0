package io.cachegate.simulator;

import com.fasterxml.jackson.databind.JsonNode;

/** What the simulator reads of a Responses API request's {@code instructions} and {@code input}. */
final class ResponsesInput {

    private ResponsesInput() {
    }

    /** The instructions and every message text of the input, one per line; 400 without an input. */
    static String promptText(JsonNode body) {
        JsonNode input = body.get("input");
        if (input == null || !(input.isTextual() || input.isArray() && !input.isEmpty())) {
            throw InvalidRequestException.badRequest("input must be a string or a non-empty array of items.",
                    "input");
        }
        StringBuilder text = new StringBuilder(256);
        if (body.path("instructions").isTextual()) {
            text.append(body.get("instructions").textValue()).append('\n');
        }
        if (input.isTextual()) {
            return text.append(input.textValue()).toString();
        }
        for (JsonNode item : input) {
            JsonNode content = item.path("content");
            if (content.isTextual()) {
                text.append(content.textValue()).append('\n');
            } else {
                content.forEach(part -> text.append(part.path("text").asText("")).append('\n'));
            }
        }
        return text.toString();
    }

    /** The input string, or the text of the last user message of the input list; null when there is none. */
    static String lastUserText(JsonNode body) {
        JsonNode input = body.get("input");
        return input.isTextual() ? input.textValue() : CompletionRequest.lastUserText(input);
    }
}
