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
}
