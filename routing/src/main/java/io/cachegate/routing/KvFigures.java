package io.cachegate.routing;

import java.util.Objects;
import java.util.function.IntConsumer;

/**
 * What {@code balance: kv_aware} knows of one request: per replica (URL order) the prompt tokens its KV cache does
 * not hold, the distinct prefixes it holds (its events' chain roots, for placing a prompt no replica holds; empty
 * when unknown), and whom to tell which replica was chosen (so the blocks that replica is about to compute count as
 * held there before its events say so).
 */
public record KvFigures(int[] uncachedTokens, int[] prefixes, IntConsumer chosen) {

    public KvFigures {
        uncachedTokens = uncachedTokens.clone();
        prefixes = prefixes.clone();
        if (prefixes.length != 0 && prefixes.length != uncachedTokens.length) {
            throw new IllegalArgumentException("prefixes for " + prefixes.length + " replicas, uncached tokens for "
                    + uncachedTokens.length);
        }
        Objects.requireNonNull(chosen, "chosen");
    }

    /** Without the replicas' prefix counts: a prompt no replica holds is placed by its hash alone. */
    public KvFigures(int[] uncachedTokens, IntConsumer chosen) {
        this(uncachedTokens, new int[0], chosen);
    }

    @Override
    public int[] prefixes() {
        return prefixes.clone();
    }

    @Override
    public int[] uncachedTokens() {
        return uncachedTokens.clone();
    }
}
