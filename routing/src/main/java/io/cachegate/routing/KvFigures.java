package io.cachegate.routing;

import java.util.Objects;
import java.util.function.IntConsumer;

/**
 * What {@code balance: kv_aware} knows of one request: per replica (URL order) the prompt tokens its KV cache does
 * not hold, and whom to tell which replica was chosen (so the blocks that replica is about to compute count as
 * held there before its events say so).
 */
public record KvFigures(int[] uncachedTokens, IntConsumer chosen) {

    public KvFigures {
        uncachedTokens = uncachedTokens.clone();
        Objects.requireNonNull(chosen, "chosen");
    }

    @Override
    public int[] uncachedTokens() {
        return uncachedTokens.clone();
    }
}
