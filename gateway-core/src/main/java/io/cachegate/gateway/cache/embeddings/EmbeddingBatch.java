package io.cachegate.gateway.cache.embeddings;

import com.fasterxml.jackson.databind.JsonNode;
import io.cachegate.cache.exact.CacheKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The items of an embeddings request whose {@code input} is a list of strings or a list of token arrays, each with
 * its key, and the distinct keys among them: two items with one key (a repeat, or texts the route normalises to
 * the same) get one vector, looked up and sent upstream once.
 */
final class EmbeddingBatch {

    /** OpenAI's limit on the items of one request; a longer list is not split here but passed on whole. */
    static final int MAX_ITEMS = 2048;

    private final List<JsonNode> items;
    private final List<CacheKey> distinctKeys = new ArrayList<>();
    private final List<JsonNode> distinctItems = new ArrayList<>();
    /** For each position of the request, the index of its key in {@link #distinctKeys}. */
    private final int[] distinctOf;

    private EmbeddingBatch(List<JsonNode> items, Function<JsonNode, CacheKey> keyOf) {
        this.items = items;
        this.distinctOf = new int[items.size()];
        Map<CacheKey, Integer> seen = new HashMap<>();
        for (int i = 0; i < items.size(); i++) {
            CacheKey key = keyOf.apply(items.get(i));
            Integer known = seen.putIfAbsent(key, distinctKeys.size());
            if (known == null) {
                distinctOf[i] = distinctKeys.size();
                distinctKeys.add(key);
                distinctItems.add(items.get(i));
            } else {
                distinctOf[i] = known;
            }
        }
    }

    /**
     * The batch of {@code input} when it is cached per item: a list of 1 to {@value #MAX_ITEMS} strings, or of as
     * many non-empty arrays of integers. Anything else (one string, one token array, a mixed or empty list) is
     * null: the request is cached whole, or refused by the backend, as before.
     */
    static EmbeddingBatch of(JsonNode input, Function<JsonNode, CacheKey> keyOf) {
        if (input == null || !input.isArray() || input.isEmpty() || input.size() > MAX_ITEMS) {
            return null;
        }
        boolean texts = input.get(0).isTextual();
        List<JsonNode> items = new ArrayList<>(input.size());
        for (JsonNode item : input) {
            if (texts ? !item.isTextual() : !isTokenArray(item)) {
                return null;
            }
            items.add(item);
        }
        return new EmbeddingBatch(items, keyOf);
    }

    private static boolean isTokenArray(JsonNode item) {
        if (!item.isArray() || item.isEmpty()) {
            return false;
        }
        for (JsonNode token : item) {
            if (!token.isIntegralNumber() || !token.canConvertToInt()) {
                return false;
            }
        }
        return true;
    }

    int size() {
        return items.size();
    }

    int distinctCount() {
        return distinctKeys.size();
    }

    List<CacheKey> distinctKeys() {
        return distinctKeys;
    }

    JsonNode distinctItem(int distinct) {
        return distinctItems.get(distinct);
    }

    /** The index of position {@code position}'s key among the distinct keys. */
    int distinctOf(int position) {
        return distinctOf[position];
    }

    /**
     * A weight in proportion to the item's tokens, to share a batch's token count among its items: a token array's
     * length (its exact count), a text's UTF-8 bytes over four (about a BPE token), at least 1.
     */
    int tokenWeight(int distinct) {
        JsonNode item = distinctItems.get(distinct);
        if (item.isArray()) {
            return item.size();
        }
        String text = item.textValue();
        int bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            bytes += c < 0x80 ? 1 : c < 0x800 || Character.isSurrogate(c) ? 2 : 3;
        }
        return Math.max(1, (bytes + 3) / 4);
    }
}
