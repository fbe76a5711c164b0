package io.cachegate.cache.exact;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.config.Normalize;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

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

    private static final Map<String, JsonNode> CHAT_DEFAULTS = Map.of(
            "temperature", NODES.numberNode(1),
            "top_p", NODES.numberNode(1),
            "n", NODES.numberNode(1),
            "presence_penalty", NODES.numberNode(0),
            "frequency_penalty", NODES.numberNode(0),
            "logprobs", NODES.booleanNode(false));
    private static final Map<String, JsonNode> COMPLETION_DEFAULTS = Map.of(
            "temperature", NODES.numberNode(1),
            "top_p", NODES.numberNode(1),
            "n", NODES.numberNode(1),
            "presence_penalty", NODES.numberNode(0),
            "frequency_penalty", NODES.numberNode(0),
            "max_tokens", NODES.numberNode(16),
            "echo", NODES.booleanNode(false),
            "best_of", NODES.numberNode(1));
    private static final Map<String, JsonNode> EMBEDDING_DEFAULTS = Map.of(
            "encoding_format", NODES.textNode("float"));
    /** Optional fields whose explicit null OpenAI reads as "not given". */
    private static final List<String> NULL_IS_ABSENT = List.of(
            "seed", "stop", "logit_bias", "tools", "tool_choice", "parallel_tool_calls", "response_format",
            "max_tokens", "max_completion_tokens", "top_logprobs", "logprobs", "suffix", "dimensions");
    /** Roles whose text a person wrote; normalisation never touches assistant or tool output. */
    private static final Set<String> AUTHORED_ROLES = Set.of("user", "system", "developer");

    private CanonicalRequest() {
    }

    /** The canonical bytes of {@code body} (left unchanged) sent to the {@code kind} endpoint. */
    public static byte[] of(RequestKind kind, ObjectNode body, CanonicalOptions options) {
        ObjectNode request = body.deepCopy();
        if (kind == RequestKind.RESPONSE) {
            ResponsesCanonical.apply(request, options.normalize()); // echoes its request: rules of its own
            return render(kind.name().toLowerCase(Locale.ROOT), request);
        }
        return canonical(kind, kind.name().toLowerCase(Locale.ROOT), request, options);
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
        return canonical(RequestKind.EMBEDDING, "embedding_item", request, options);
    }

    private static byte[] canonical(RequestKind kind, String kindName, ObjectNode request, CanonicalOptions options) {
        request.remove(ANSWER_NEUTRAL);
        if (!options.keyOnUser()) {
            request.remove(USER_FIELDS);
        }
        for (String field : NULL_IS_ABSENT) {
            if (request.path(field).isNull()) {
                request.remove(field);
            }
        }
        switch (kind) {
            case CHAT -> chat(request, options.normalize());
            case COMPLETION -> completion(request, options.normalize());
            case EMBEDDING -> embedding(request, options.normalize());
            default -> throw new IllegalArgumentException("unknown kind " + kind);
        }
        return render(kindName, request);
    }

    private static byte[] render(String kindName, ObjectNode request) {
        // The endpoint goes first, so one body sent to two endpoints never shares a key.
        ArrayNode envelope = NODES.arrayNode().add(kindName).add(request);
        return CanonicalJson.render(envelope);
    }

    private static void chat(ObjectNode request, Normalize normalize) {
        fillDefaults(request, CHAT_DEFAULTS);
        noneSpellings(request);
        unifyMaxTokens(request);
        boolean tools = request.path("tools").isArray() && !request.path("tools").isEmpty();
        if (!request.has("tool_choice")) {
            request.put("tool_choice", tools ? "auto" : "none");
        }
        if (tools && !request.has("parallel_tool_calls")) {
            request.put("parallel_tool_calls", true);
        }
        if (!request.has("response_format")) {
            request.putObject("response_format").put("type", "text");
        }
        if (normalize != Normalize.NONE && request.path("messages").isArray()) {
            for (JsonNode message : request.get("messages")) {
                if (message instanceof ObjectNode m && AUTHORED_ROLES.contains(m.path("role").asText())) {
                    normalizeContent(m, normalize);
                }
            }
        }
    }

    private static void completion(ObjectNode request, Normalize normalize) {
        fillDefaults(request, COMPLETION_DEFAULTS);
        noneSpellings(request);
        normalizeTexts(request, "prompt", normalize);
    }

    private static void embedding(ObjectNode request, Normalize normalize) {
        fillDefaults(request, EMBEDDING_DEFAULTS);
        normalizeTexts(request, "input", normalize);
    }

    private static void fillDefaults(ObjectNode request, Map<String, JsonNode> defaults) {
        defaults.forEach((field, value) -> {
            if (!request.hasNonNull(field)) {
                request.set(field, value);
            }
        });
    }

    /** Rules shared by chat and completions: {@code stop} and {@code logit_bias} spellings of "none". */
    private static void noneSpellings(ObjectNode request) {
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

    /**
     * {@code max_completion_tokens} is the newer name of {@code max_tokens}: the key uses
     * {@code max_tokens}. Two different values are kept apart, as the backend sees both.
     */
    private static void unifyMaxTokens(ObjectNode request) {
        JsonNode completion = request.get("max_completion_tokens");
        if (completion == null) {
            return;
        }
        JsonNode max = request.get("max_tokens");
        boolean same = max != null && max.isNumber() && completion.isNumber()
                && CanonicalJson.number(max).equals(CanonicalJson.number(completion));
        if (max == null || same) {
            request.remove("max_completion_tokens");
            request.set("max_tokens", completion);
        }
    }

    private static void normalizeContent(ObjectNode message, Normalize normalize) {
        JsonNode content = message.get("content");
        if (content != null && content.isTextual()) {
            message.put("content", TextNormalizer.apply(content.textValue(), normalize));
        } else if (content != null && content.isArray()) {
            for (JsonNode part : content) {
                if (part instanceof ObjectNode p && "text".equals(p.path("type").asText()) && p.path("text").isTextual()) {
                    p.put("text", TextNormalizer.apply(p.get("text").textValue(), normalize));
                }
            }
        }
    }

    /** A string or a list of strings (token-id lists are left alone). */
    private static void normalizeTexts(ObjectNode request, String field, Normalize normalize) {
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
