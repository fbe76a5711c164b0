package io.cachegate.gateway.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A parsed OpenAI request: what routing and caching need, read once. The raw bytes are forwarded
 * unchanged, so the backend reads exactly what was parsed here. {@code body} is the parsed tree;
 * treat it as read-only.
 *
 * @param input the messages (chat), prompt (completions) or input (embeddings)
 */
public record OpenAiRequest(Endpoint endpoint, String model, JsonNode input, SamplingParameters sampling,
                            boolean stream, boolean includeUsage, ObjectNode body) {

    /** {@link #promptText(JsonNode)} of this request's input: what admission and tenant limits estimate. */
    public String promptText() {
        return promptText(input);
    }

    /**
     * The text the model reads: message contents (and text parts), a prompt, or an input, joined by newlines.
     * The chat template adds a few tokens per message, which the over-estimate and max_tokens absorb. Earlier
     * turns come first, so a growing conversation keeps them as a common prefix for prefix affinity.
     */
    public static String promptText(JsonNode input) {
        if (input == null) {
            return "";
        }
        if (input.isTextual()) {
            return input.textValue();
        }
        StringBuilder text = new StringBuilder();
        for (JsonNode item : input) {
            JsonNode content = item.isObject() ? item.get("content") : item;
            if (content == null) {
                continue;
            }
            if (content.isTextual()) {
                text.append(content.textValue()).append('\n');
            } else if (content.isArray()) {
                for (JsonNode part : content) {
                    if (part.path("text").isTextual()) {
                        text.append(part.path("text").textValue()).append('\n');
                    }
                }
            }
        }
        return text.toString();
    }
}
