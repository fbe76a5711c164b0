package io.cachegate.gateway.cache.embeddings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.cache.exact.CacheEntry;
import java.io.IOException;
import java.util.BitSet;

/**
 * The answers of a batch cached per item: one item's entry (the vector as the backend sent it, a float list or a
 * base64 string, and the model that made it), the answer made of cached items only, and the backend's answer for
 * the missing items merged with the cached ones in the request's order, each with its position as {@code index}.
 * Usage is the sum of every position's tokens: the stored count of a cached item, a share of the backend's count
 * for a fresh one ({@link TokenShares}); a repeated item counts at each position, as the backend counts it.
 */
final class EmbeddingAnswer {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The backend's answer cannot be merged (not the shape of an embeddings answer for the items sent). */
    static final class MergeException extends Exception {
        MergeException(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * A merged answer and the vectors it adds to the cache.
     *
     * @param fresh for each distinct item, its vector from the backend, or null when it came from the cache
     * @param freshTokens for each distinct item from the backend, its share of the backend's token count
     */
    record Merged(byte[] body, String model, JsonNode[] fresh, int[] freshTokens) {
    }

    private EmbeddingAnswer() {
    }

    /** The body of one item's entry. */
    static byte[] itemBody(String model, JsonNode embedding) {
        ObjectNode item = JSON.createObjectNode().put("model", model);
        item.set("embedding", embedding);
        try {
            return JSON.writeValueAsBytes(item);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The stored item of {@code entry}, or null when its body is not one (an entry of another shape). */
    static ObjectNode storedItem(CacheEntry entry) {
        try {
            JsonNode item = JSON.readTree(entry.body());
            return item instanceof ObjectNode o && o.path("model").isTextual() && isEmbedding(o.get("embedding"))
                    ? o : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** The answer made of cached items only; {@code cached} holds each distinct item's stored item. */
    static byte[] fromCache(EmbeddingBatch batch, ObjectNode[] cached, CacheEntry[] entries) {
        ObjectNode answer = JSON.createObjectNode().put("object", "list");
        ArrayNode data = answer.putArray("data");
        long tokens = 0;
        for (int i = 0; i < batch.size(); i++) {
            int d = batch.distinctOf(i);
            data.add(element(i, cached[d].get("embedding")));
            tokens += entries[d].promptTokens();
        }
        answer.put("model", cached[batch.distinctOf(0)].get("model").textValue());
        answer.putObject("usage").put("prompt_tokens", tokens).put("total_tokens", tokens);
        return bytes(answer);
    }

    /**
     * Merges the backend's answer to the items {@code sent} (distinct indexes, in the order of the rewritten
     * input) with the {@code cached} ones. The backend's other fields ({@code id}, {@code model}, …) are kept.
     */
    static Merged merge(byte[] upstreamBody, EmbeddingBatch batch, ObjectNode[] cached, CacheEntry[] entries,
                        int[] sent) throws MergeException {
        ObjectNode answer;
        try {
            JsonNode parsed = JSON.readTree(upstreamBody);
            if (!(parsed instanceof ObjectNode o)) {
                throw new MergeException("the answer is not a JSON object");
            }
            answer = o;
        } catch (IOException e) {
            throw new MergeException("the answer is not JSON");
        }
        JsonNode data = answer.get("data");
        if (data == null || !data.isArray() || data.size() != sent.length) {
            throw new MergeException("the answer does not hold one embedding per input sent (" + sent.length + ")");
        }
        JsonNode[] fresh = new JsonNode[batch.distinctCount()];
        BitSet seen = new BitSet(sent.length);
        for (JsonNode element : data) {
            JsonNode index = element.path("index");
            JsonNode embedding = element.get("embedding");
            if (!index.canConvertToInt() || index.intValue() < 0 || index.intValue() >= sent.length
                    || seen.get(index.intValue()) || !isEmbedding(embedding)) {
                throw new MergeException("an embedding's index or vector is missing or out of place");
            }
            seen.set(index.intValue());
            fresh[sent[index.intValue()]] = embedding;
        }
        int[] weights = new int[sent.length];
        for (int k = 0; k < sent.length; k++) {
            weights[k] = batch.tokenWeight(sent[k]);
        }
        int[] shares = TokenShares.split(answer.path("usage").path("prompt_tokens").asInt(0), weights);
        int[] freshTokens = new int[batch.distinctCount()];
        for (int k = 0; k < sent.length; k++) {
            freshTokens[sent[k]] = shares[k];
        }
        ArrayNode merged = JSON.createArrayNode();
        long tokens = 0;
        for (int i = 0; i < batch.size(); i++) {
            int d = batch.distinctOf(i);
            merged.add(element(i, fresh[d] != null ? fresh[d] : cached[d].get("embedding")));
            tokens += fresh[d] != null ? freshTokens[d] : entries[d].promptTokens();
        }
        answer.set("data", merged);
        ObjectNode usage = answer.get("usage") instanceof ObjectNode u ? u : answer.putObject("usage");
        usage.put("prompt_tokens", tokens).put("total_tokens", tokens);
        String model = answer.path("model").isTextual() ? answer.get("model").textValue() : "";
        return new Merged(bytes(answer), model, fresh, freshTokens);
    }

    private static ObjectNode element(int index, JsonNode embedding) {
        ObjectNode element = JSON.createObjectNode().put("object", "embedding").put("index", index);
        element.set("embedding", embedding);
        return element;
    }

    /** A float list or a base64 string: the two encodings OpenAI answers with. */
    private static boolean isEmbedding(JsonNode embedding) {
        return embedding != null && (embedding.isArray() || embedding.isTextual());
    }

    private static byte[] bytes(JsonNode answer) {
        try {
            return JSON.writeValueAsBytes(answer);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
