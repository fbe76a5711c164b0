package io.cachegate.cache.exact;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.config.Normalize;
import java.util.List;
import java.util.Map;

/**
 * The canonical form of a request: the bytes two requests share exactly when they must get the same
 * answer. Keys sorted, numbers in one spelling, answer-neutral fields removed, OpenAI defaults
 * filled in; the full specification, and why each rule keeps answers correct, is CANONICAL_FORM.md.
 */
public final class CanonicalRequest {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** Fields that cannot change the answer: transport, bookkeeping and routing hints. */
    private static final List<String> ANSWER_NEUTRAL = List.of(
            "stream", "stream_options", "metadata", "store", "request_id", "prompt_cache_key");
    /** Who is asking: in the key only when the route keys on the user. */
    static final List<String> USER_FIELDS = List.of("user", "safety_identifier");

    /** Optional fields whose explicit null OpenAI reads as "not given". */
    private static final List<String> NULL_IS_ABSENT = List.of(
            "seed", "stop", "logit_bias", "tools", "tool_choice", "parallel_tool_calls", "response_format",
            "max_tokens", "max_completion_tokens", "top_logprobs", "logprobs", "suffix", "dimensions");

    private CanonicalRequest() {
    }

    /** The canonical bytes of {@code body} (left unchanged) sent to the endpoint of {@code dialect}. */
    public static byte[] of(Dialect dialect, ObjectNode body, CanonicalOptions options) {
        ObjectNode request = body.deepCopy();
        dialect.canonicalize(request, options);
        return render(dialect.keyName(), request);
    }

    /**
     * The canonical bytes of one item of an embeddings batch: {@code parameters} (the request without its
     * {@code input}, left unchanged) with {@code item} as its input, under the kind {@code embedding_item}. The
     * rules are a whole embeddings request's; the kind keeps an item's key apart from the key of a whole request
     * whose input is that one item (whose entry is a whole answer, not one vector).
     */
    public static byte[] embeddingItem(ObjectNode parameters, JsonNode item, CanonicalOptions options) {
        if (parameters.has("input")) {
            throw new IllegalArgumentException("parameters must not hold the input: the batch is not part of an item's key");
        }
        ObjectNode request = parameters.deepCopy();
        request.set("input", item.deepCopy());
        Dialect.EMBEDDINGS.canonicalize(request, options);
        return render("embedding_item", request);
    }

    /**
     * The rules chat, completions and embeddings share, applied before each adds its own: answer-neutral fields
     * out, the user unless the route keys on it, explicit nulls of optional fields read as absent.
     */
    static void openAiRules(ObjectNode request, CanonicalOptions options) {
        request.remove(ANSWER_NEUTRAL);
        if (!options.keyOnUser()) {
            request.remove(USER_FIELDS);
        }
        for (String field : NULL_IS_ABSENT) {
            if (request.path(field).isNull()) {
                request.remove(field);
            }
        }
    }

    private static byte[] render(String kindName, ObjectNode request) {
        // The endpoint goes first, so one body sent to two endpoints never shares a key.
        ArrayNode envelope = NODES.arrayNode().add(kindName).add(request);
        return CanonicalJson.render(envelope);
    }

    static void fillDefaults(ObjectNode request, Map<String, JsonNode> defaults) {
        defaults.forEach((field, value) -> {
            if (!request.hasNonNull(field)) {
                request.set(field, value);
            }
        });
    }

    /** Rules shared by chat and completions: {@code stop} and {@code logit_bias} spellings of "none". */
    static void noneSpellings(ObjectNode request) {
        JsonNode stop = request.get("stop");
        if (stop != null && stop.isArray() && stop.isEmpty()) {
            request.remove("stop");
        } else if (stop != null && stop.isTextual()) {
            // One stop string and a list holding just it are the same instruction.
            request.putArray("stop").add(stop);
        }
        JsonNode bias = request.get("logit_bias");
        if (bias != null && bias.isObject() && bias.isEmpty()) {
            request.remove("logit_bias");
        }
    }

    /** A string or a list of strings (token-id lists are left alone). */
    static void normalizeTexts(ObjectNode request, String field, Normalize normalize) {
        JsonNode value = request.get(field);
        if (normalize == Normalize.NONE || value == null) {
            return;
        }
        if (value.isTextual()) {
            request.put(field, TextNormalizer.apply(value.textValue(), normalize));
        } else if (value instanceof ArrayNode items) {
            for (int i = 0; i < items.size(); i++) {
                if (items.get(i).isTextual()) {
                    items.set(i, NODES.textNode(TextNormalizer.apply(items.get(i).textValue(), normalize)));
                }
            }
        }
    }
}
