package io.cachegate.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.SplittableRandom;

/**
 * {@code POST /v1/embeddings}: a deterministic unit vector per input (a string or a token-id
 * array), seeded from the hash of the model and the input, as floats or as base64 of
 * little-endian float32 like OpenAI's {@code encoding_format: base64}.
 */
final class EmbeddingGenerator {

    static final int DIMENSION = 384;

    private EmbeddingGenerator() {
    }

    /** An answer and what it cost: the inputs embedded and their tokens. */
    record Answer(String json, int inputs, int promptTokens) {
    }

    static Answer respond(JsonNode body, List<String> models) {
        if (!body.isObject()) {
            throw InvalidRequestException.badRequest("The request body must be a JSON object.", null);
        }
        String model = ModelResolver.resolve(body, models);
        String format = body.path("encoding_format").asText("float");
        if (!format.equals("float") && !format.equals("base64")) {
            throw InvalidRequestException.badRequest("encoding_format must be float or base64.", "encoding_format");
        }
        List<JsonNode> inputs = inputs(body.get("input"));
        StringBuilder out = new StringBuilder(inputs.size() * (format.equals("float") ? DIMENSION * 12 : DIMENSION * 6));
        out.append("{\"id\":\"embd-").append(RequestHash.ofRequest(body).idHex())
                .append("\",\"object\":\"list\",\"created\":").append(System.currentTimeMillis() / 1000)
                .append(",\"model\":").append(Json.quote(model)).append(",\"data\":[");
        int promptTokens = 0;
        for (int i = 0; i < inputs.size(); i++) {
            JsonNode input = inputs.get(i);
            promptTokens += input.isTextual() ? CompletionRequest.countWords(input.textValue()) : input.size();
            float[] vector = vector(RequestHash.of(model, input).seed());
            if (i > 0) {
                out.append(',');
            }
            out.append("{\"index\":").append(i).append(",\"object\":\"embedding\",\"embedding\":");
            if (format.equals("float")) {
                appendFloats(out, vector);
            } else {
                out.append('"').append(base64(vector)).append('"');
            }
            out.append('}');
        }
        out.append("],\"usage\":{\"prompt_tokens\":").append(promptTokens)
                .append(",\"total_tokens\":").append(promptTokens)
                .append(",\"completion_tokens\":0,\"prompt_tokens_details\":null}}");
        return new Answer(out.toString(), inputs.size(), promptTokens);
    }

    /** A string, a list of strings, a token-id array, or a list of token-id arrays. */
    private static List<JsonNode> inputs(JsonNode input) {
        if (input == null || input.isNull() || (input.isArray() && input.isEmpty())) {
            throw InvalidRequestException.badRequest("input must be a non-empty string or array.", "input");
        }
        List<JsonNode> inputs = new ArrayList<>();
        if (input.isTextual() || (input.isArray() && input.get(0).isNumber())) {
            inputs.add(input);
            return inputs;
        }
        if (!input.isArray()) {
            throw InvalidRequestException.badRequest("input must be a string or an array.", "input");
        }
        for (JsonNode element : input) {
            if (!element.isTextual() && !element.isArray()) {
                throw InvalidRequestException.badRequest("input elements must be strings or token arrays.", "input");
            }
            inputs.add(element);
        }
        return inputs;
    }

    static float[] vector(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        float[] vector = new float[DIMENSION];
        double norm = 0;
        for (int i = 0; i < DIMENSION; i++) {
            double value = random.nextGaussian();
            vector[i] = (float) value;
            norm += value * value;
        }
        float scale = (float) (1 / Math.sqrt(norm));
        for (int i = 0; i < DIMENSION; i++) {
            vector[i] *= scale;
        }
        return vector;
    }

    private static void appendFloats(StringBuilder out, float[] vector) {
        out.append('[');
        for (int i = 0; i < vector.length; i++) {
            if (i > 0) {
                out.append(',');
            }
            out.append(vector[i]);
        }
        out.append(']');
    }

    private static String base64(float[] vector) {
        ByteBuffer bytes = ByteBuffer.allocate(vector.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (float value : vector) {
            bytes.putFloat(value);
        }
        return Base64.getEncoder().encodeToString(bytes.array());
    }
}
