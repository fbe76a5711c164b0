package io.cachegate.cache.exact;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.config.Normalize;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The canonical form of a Responses API request ({@code POST /v1/responses}), section 4 of CANONICAL_FORM.md.
 * Unlike chat, a response object echoes most of its request ({@code metadata}, {@code store}, {@code user},
 * {@code instructions}, sampling, tools), so only transport fields leave the key: a hit never shows one client's
 * metadata or user id to another.
 */
final class ResponsesCanonical {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** Transport only: nothing of them is in the answer. */
    private static final List<String> ANSWER_NEUTRAL = List.of("stream", "stream_options", "request_id");
    /** Optional fields whose explicit null OpenAI reads as "not given". */
    private static final List<String> NULL_IS_ABSENT = List.of(
            "instructions", "previous_response_id", "conversation", "prompt", "max_output_tokens", "max_tool_calls",
            "tools", "tool_choice", "parallel_tool_calls", "text", "reasoning", "include", "top_logprobs", "seed",
            "metadata", "user", "safety_identifier", "prompt_cache_key", "service_tier", "truncation", "background",
            "store");
    /** OpenAI's documented defaults; each is echoed in the response object, so an omitted field reads as it. */
    private static final Map<String, JsonNode> DEFAULTS = Map.of(
            "temperature", NODES.numberNode(1),
            "top_p", NODES.numberNode(1),
            "store", NODES.booleanNode(true),
            "background", NODES.booleanNode(false),
            "parallel_tool_calls", NODES.booleanNode(true),
            "tool_choice", NODES.textNode("auto"),
            "truncation", NODES.textNode("disabled"),
            "service_tier", NODES.textNode("auto"));
    private static final Set<String> AUTHORED_ROLES = Set.of("user", "system", "developer");

    private ResponsesCanonical() {
    }

    /**
     * True when the answer depends on state the backend holds rather than on the request alone: an earlier
     * response ({@code previous_response_id}), a conversation, a stored prompt template or a reference to a
     * stored item.
     */
    static boolean usesServerState(ObjectNode body) {
        if (body.hasNonNull("previous_response_id") || body.hasNonNull("conversation") || body.hasNonNull("prompt")) {
            return true;
        }
        for (JsonNode item : body.path("input")) {
            if ("item_reference".equals(item.path("type").asText())) {
                return true;
            }
        }
        return false;
    }

    /** Rewrites {@code request}, a copy of the body, to its canonical content. */
    static void apply(ObjectNode request, Normalize normalize) {
        request.remove(ANSWER_NEUTRAL);
        for (String field : NULL_IS_ABSENT) {
            if (request.path(field).isNull()) {
                request.remove(field);
            }
        }
        DEFAULTS.forEach((field, value) -> {
            if (!request.hasNonNull(field)) {
                request.set(field, value);
            }
        });
        if (request.path("metadata").isObject() && request.path("metadata").isEmpty()) {
            request.remove("metadata"); // absent and {} are both echoed as {}
        }
        JsonNode text = request.get("text");
        if (text == null) {
            text = request.putObject("text");
        }
        if (text instanceof ObjectNode t && !t.has("format")) {
            t.putObject("format").put("type", "text");
        }
        if (normalize != Normalize.NONE) {
            normalizeAuthored(request, normalize);
        }
    }

    /** {@code cache.normalize}: the input string, user/system/developer message text and the instructions. */
    private static void normalizeAuthored(ObjectNode request, Normalize normalize) {
        if (request.path("instructions").isTextual()) {
            request.put("instructions", TextNormalizer.apply(request.get("instructions").textValue(), normalize));
        }
        JsonNode input = request.get("input");
        if (input != null && input.isTextual()) {
            request.put("input", TextNormalizer.apply(input.textValue(), normalize));
            return;
        }
        if (!(input instanceof ArrayNode items)) {
            return;
        }
        for (JsonNode item : items) {
            if (!(item instanceof ObjectNode message) || !AUTHORED_ROLES.contains(message.path("role").asText())) {
                continue;
            }
            JsonNode content = message.get("content");
            if (content != null && content.isTextual()) {
                message.put("content", TextNormalizer.apply(content.textValue(), normalize));
            } else if (content instanceof ArrayNode parts) {
                for (JsonNode part : parts) {
                    if (part instanceof ObjectNode p && "input_text".equals(p.path("type").asText())
                            && p.path("text").isTextual()) {
                        p.put("text", TextNormalizer.apply(p.get("text").textValue(), normalize));
                    }
                }
            }
        }
    }
}
