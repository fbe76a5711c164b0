package io.cachegate.routing;

import java.util.Arrays;

/**
 * Chained hashes of a prompt's complete fixed-size character blocks: {@code hash(i) = H(hash(i-1),
 * block i)}, so hash {@code i} stands for the whole prefix up to block {@code i} and two prompts
 * share their leading hashes exactly as far as they share leading blocks. A trailing partial block
 * is not hashed (model servers cache only full blocks). 64-bit FNV-1a over UTF-16 units with a
 * final avalanche: collisions only cost routing precision. Immutable.
 */
public final class PrefixHashes {

    private static final PrefixHashes EMPTY = new PrefixHashes(new long[0], 1);
    private static final long SEED = 0x9E3779B97F4A7C15L;
    private static final long FNV_PRIME = 0x100000001B3L;

    private final long[] hashes;
    private final int blockChars;

    private PrefixHashes(long[] hashes, int blockChars) {
        this.hashes = hashes;
        this.blockChars = blockChars;
    }

    /** No blocks: prefix affinity then falls back to least loaded. */
    public static PrefixHashes empty() {
        return EMPTY;
    }

    /** Hashes at most {@code maxBlocks} complete blocks of {@code blockChars} characters of {@code text}. */
    public static PrefixHashes of(CharSequence text, int blockChars, int maxBlocks) {
        if (blockChars < 1 || maxBlocks < 0) {
            throw new IllegalArgumentException("blockChars must be >= 1 and maxBlocks >= 0, were "
                    + blockChars + " and " + maxBlocks);
        }
        int blocks = Math.min(text.length() / blockChars, maxBlocks);
        long[] out = new long[blocks];
        long previous = SEED;
        for (int b = 0; b < blocks; b++) {
            long h = previous;
            int end = (b + 1) * blockChars;
            for (int i = b * blockChars; i < end; i++) {
                h ^= text.charAt(i);
                h *= FNV_PRIME;
            }
            previous = mix(h);
            out[b] = previous;
        }
        return new PrefixHashes(out, blockChars);
    }

    /** The number of complete blocks hashed. */
    public int size() {
        return hashes.length;
    }

    public boolean isEmpty() {
        return hashes.length == 0;
    }

    /** The hash of the prefix ending with block {@code i} (0-based). */
    public long get(int i) {
        return hashes[i];
    }

    /** The block size these hashes were made with; a set only accepts its own block size. */
    public int blockChars() {
        return blockChars;
    }

    /** MurmurHash3's fmix64: spreads FNV's weak high bits (and mixes {@link Rendezvous}'s weights). */
    static long mix(long h) {
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return h;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PrefixHashes other && blockChars == other.blockChars && Arrays.equals(hashes, other.hashes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(hashes) * 31 + blockChars;
    }

    @Override
    public String toString() {
        return "PrefixHashes[blocks=" + hashes.length + ", blockChars=" + blockChars + "]";
    }
}
