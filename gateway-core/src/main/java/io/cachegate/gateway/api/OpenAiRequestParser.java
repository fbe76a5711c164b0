package io.cachegate.gateway.api;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.config.JsonLimits;
import java.io.IOException;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Parses and type-checks OpenAI request bodies. Strict on purpose: duplicate keys, trailing data,
 * NaN, invalid UTF-8, a byte order mark or UTF-16/32, and oversized nesting, strings or numbers are rejected, because a backend that
 * read such a body differently (Python's json keeps the last duplicate) could be given one prompt
 * while a cached answer is keyed on another.
 */
public final class OpenAiRequestParser {

    /** Made once: {@code ObjectMapper.readTree} resolved the tree type on every call (~1% of a proxied request). */
    private final ObjectReader trees;

    public OpenAiRequestParser(JsonLimits limits) {
        JsonFactory factory = JsonFactory.builder()
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .streamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(limits.maxDepth())
                        .maxStringLength(limits.maxStringLength())
                        .maxNumberLength(limits.maxNumberLength())
                        .build())
                .build();
        this.trees = new ObjectMapper(factory).enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).reader();
    }

    /** Parses any JSON object body (used where only the model is of interest). */
    public ObjectNode parseObject(byte[] body) {
        if (body.length > 0 && (body[0] == 0 || (body[0] & 0x80) != 0 || (body.length > 1 && body[1] == 0))) {
            // A byte order mark or UTF-16/32, which Jackson would detect and decode: JSON between systems is UTF-8.
            throw new ApiException(ErrorKind.INVALID_JSON, "Request body must be JSON in UTF-8, without a byte order mark");
        }
        JsonNode root;
        try {
            root = trees.readTree(body);
        } catch (StreamConstraintsException e) {
            throw new ApiException(ErrorKind.INVALID_JSON, "Request body exceeds a JSON limit: " + e.getOriginalMessage());
        } catch (JsonParseException e) {
            throw new ApiException(ErrorKind.INVALID_JSON, "Request body is not valid JSON: " + e.getOriginalMessage());
        } catch (JsonProcessingException e) {
            // Data after the value; databind's own message names Java types and features (found by fuzzing).
            throw new ApiException(ErrorKind.INVALID_JSON, "Request body is not valid JSON: data follows the JSON value");
        } catch (IOException e) {
            throw new ApiException(ErrorKind.INVALID_JSON, "Request body could not be read: " + e.getMessage());
        }
        if (root == null || root.isMissingNode()) {
            throw new ApiException(ErrorKind.INVALID_JSON, "Request body is empty; expected a JSON object");
        }
        if (!(root instanceof ObjectNode)) {
            throw new ApiException(ErrorKind.INVALID_JSON, "Request body must be a JSON object");
        }
        String overflow = nonFiniteNumber(root);
        if (overflow != null) {
            throw new ApiException(ErrorKind.INVALID_REQUEST,
                    "A number is too large to represent (it would be infinite)", overflow);
        }
        return (ObjectNode) root;
    }

    /** Parses and validates a body for one of the generation or embedding endpoints. */
    public OpenAiRequest parse(Endpoint endpoint, byte[] body) {
        ObjectNode root = parseObject(body);
        if (endpoint == Endpoint.RESPONSES) {
            return ResponsesRequestParser.parse(root);
        }
        String model = requiredString(root, "model");
        // A switch, not a call on the endpoint's Dialect: validation speaks the API's errors (ApiException), which
        // live here in gateway-core, and the cache module that holds the dialects knows nothing of them.
        JsonNode input = switch (endpoint) {
            case CHAT_COMPLETIONS -> messages(root);
            case COMPLETIONS -> promptOrInput(root, "prompt");
            case EMBEDDINGS -> promptOrInput(root, "input");
            default -> throw new IllegalArgumentException("not a parsed endpoint: " + endpoint);
        };
        boolean stream = optionalBoolean(root, "stream");
        boolean includeUsage = false;
        JsonNode streamOptions = root.get("stream_options");
        if (streamOptions != null && !streamOptions.isNull()) {
            if (!streamOptions.isObject()) {
                throw wrongType("stream_options", "an object");
            }
            includeUsage = optionalBoolean((ObjectNode) streamOptions, "include_usage", "stream_options.include_usage");
        }
        SamplingParameters sampling = endpoint == Endpoint.EMBEDDINGS ? SamplingParameters.NONE : sampling(root);
        return new OpenAiRequest(endpoint, model, input, sampling, stream, includeUsage, root);
    }

    /**
     * The path of the first number that overflowed a double ({@code 1e999999} reads as infinity), or null. Such a
     * number would pass range checks as infinity and reach the backend, which fails on it.
     */
    private static String nonFiniteNumber(JsonNode node) {
        if (node.isFloatingPointNumber()) {
            return Double.isFinite(node.doubleValue()) ? null : "";
        }
        if (node.isObject()) {
            for (var field : node.properties()) {
                String found = nonFiniteNumber(field.getValue());
                if (found != null) {
                    return found.isEmpty() || found.startsWith("[") ? field.getKey() + found : field.getKey() + "." + found;
                }
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                String found = nonFiniteNumber(node.get(i));
                if (found != null) {
                    return "[" + i + "]" + (found.isEmpty() || found.startsWith("[") ? found : "." + found);
                }
            }
        }
        return null;
    }

    private static SamplingParameters sampling(ObjectNode root) {
        OptionalDouble temperature = optionalNumber(root, "temperature");
        OptionalDouble topP = optionalNumber(root, "top_p");
        OptionalInt n = optionalInt(root, "n");
        OptionalInt maxTokens = optionalInt(root, "max_completion_tokens");
        if (maxTokens.isEmpty()) {
            maxTokens = optionalInt(root, "max_tokens");
        }
        OptionalLong seed = optionalLong(root, "seed");
        if (n.isPresent() && n.getAsInt() < 1) {
            throw new ApiException(ErrorKind.INVALID_REQUEST, "'n' must be at least 1", "n");
        }
        return new SamplingParameters(temperature, topP, n.orElse(1), maxTokens, seed);
    }

    private static JsonNode messages(ObjectNode root) {
        JsonNode messages = root.get("messages");
        if (messages == null || messages.isNull()) {
            throw new ApiException(ErrorKind.INVALID_REQUEST, "'messages' is a required property", "messages");
        }
        if (!messages.isArray()) {
            throw wrongType("messages", "an array");
        }
        if (messages.isEmpty()) {
            throw new ApiException(ErrorKind.INVALID_REQUEST, "'messages' must contain at least one message", "messages");
        }
        for (int i = 0; i < messages.size(); i++) {
            JsonNode message = messages.get(i);
            String path = "messages[" + i + "]";
            if (!message.isObject()) {
                throw wrongType(path, "an object");
            }
            JsonNode role = message.get("role");
            if (role == null || !role.isTextual()) {
                throw new ApiException(ErrorKind.INVALID_REQUEST, "'" + path + ".role' must be a string", path + ".role");
            }
            JsonNode content = message.get("content");
            if (content != null && !(content.isNull() || content.isTextual() || content.isArray())) {
                throw wrongType(path + ".content", "a string, an array of content parts or null");
            }
        }
        return messages;
    }

    private static JsonNode promptOrInput(ObjectNode root, String field) {
        JsonNode value = root.get(field);
        if (value == null || value.isNull()) {
            throw new ApiException(ErrorKind.INVALID_REQUEST, "'" + field + "' is a required property", field);
        }
        if (!(value.isTextual() || value.isArray())) {
            throw wrongType(field, "a string or an array");
        }
        return value;
    }

    static String requiredString(ObjectNode root, String field) {
        JsonNode value = root.get(field);
        if (value == null || value.isNull()) {
            throw new ApiException(ErrorKind.INVALID_REQUEST, "'" + field + "' is a required property", field);
        }
        if (!value.isTextual()) {
            throw wrongType(field, "a string");
        }
        if (value.textValue().isEmpty()) {
            throw new ApiException(ErrorKind.INVALID_REQUEST, "'" + field + "' must not be empty", field);
        }
        return value.textValue();
    }

    static boolean optionalBoolean(ObjectNode root, String field) {
        return optionalBoolean(root, field, field);
    }

    private static boolean optionalBoolean(ObjectNode root, String field, String path) {
        JsonNode value = root.get(field);
        if (value == null || value.isNull()) {
            return false;
        }
        if (!value.isBoolean()) {
            throw wrongType(path, "a boolean");
        }
        return value.booleanValue();
    }

    static OptionalDouble optionalNumber(ObjectNode root, String field) {
        JsonNode value = root.get(field);
        if (value == null || value.isNull()) {
            return OptionalDouble.empty();
        }
        if (!value.isNumber()) {
            throw wrongType(field, "a number");
        }
        return OptionalDouble.of(value.doubleValue());
    }

    static OptionalInt optionalInt(ObjectNode root, String field) {
        JsonNode value = root.get(field);
        if (value == null || value.isNull()) {
            return OptionalInt.empty();
        }
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            throw wrongType(field, "an integer");
        }
        return OptionalInt.of(value.intValue());
    }

    static OptionalLong optionalLong(ObjectNode root, String field) {
        JsonNode value = root.get(field);
        if (value == null || value.isNull()) {
            return OptionalLong.empty();
        }
        if (!value.isIntegralNumber() || !value.canConvertToLong()) {
            throw wrongType(field, "an integer");
        }
        return OptionalLong.of(value.longValue());
    }

    static ApiException wrongType(String field, String expected) {
        return new ApiException(ErrorKind.INVALID_REQUEST, "'" + field + "' must be " + expected, field);
    }
}
