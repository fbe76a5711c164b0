package io.cachegate.kv;

/**
 * The gateway's own name for a KV block: a chained 64-bit hash of the token ids of the block and of every block
 * before it, so equal keys mean equal prefixes. Computed the same way from an engine's {@code BlockStored} event
 * (its parent's key, then its tokens) and from a request's prompt tokens, which is why the index never needs to
 * reproduce the engine's own hash function (vLLM's depends on its version, its hash algorithm and a per-process
 * seed).
 */
public final class BlockKeys {

    /** The key a prompt's first block chains from. */
    public static final long ROOT = 0x5f3759df2c1b3c6dL;

    private BlockKeys() {
    }

    /** The key of the block made of {@code tokens[from, to)} after the block keyed {@code parent}. */
    public static long next(long parent, int[] tokens, int from, int to) {
        long h = mix(parent ^ 0x9e3779b97f4a7c15L);
        for (int i = from; i < to; i++) {
            h = mix(h + tokens[i] * 0x9e3779b97f4a7c15L);
        }
        return mix(h ^ (to - from));
    }

    /** The keys of the full blocks of {@code tokens}, head first; a partial last block has none (as in vLLM). */
    public static long[] of(int[] tokens, int blockSize) {
        if (blockSize < 1) {
            throw new IllegalArgumentException("blockSize must be positive, was " + blockSize);
        }
        long[] keys = new long[tokens.length / blockSize];
        long parent = ROOT;
        for (int b = 0; b < keys.length; b++) {
            parent = next(parent, tokens, b * blockSize, (b + 1) * blockSize);
            keys[b] = parent;
        }
        return keys;
    }

    /** SplitMix64's finaliser. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
