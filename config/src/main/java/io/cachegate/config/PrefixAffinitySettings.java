package io.cachegate.config;

/**
 * How {@link Balance#PREFIX_AFFINITY} tracks which replica holds which prompt prefix.
 *
 * @param blockChars characters per hashed prompt block (256 is about 64 tokens of English)
 * @param maxBlocksPerReplica block hashes remembered per replica, least recently used dropped first
 * @param loadFactor the replica holding the prefix is passed over (least loaded instead) when its load
 *     is above this many times the mean load of the others; at least 1
 */
public record PrefixAffinitySettings(int blockChars, int maxBlocksPerReplica, double loadFactor) {

    public PrefixAffinitySettings {
        if (blockChars < 1) {
            throw new IllegalArgumentException("blockChars must be at least 1, was " + blockChars);
        }
        if (maxBlocksPerReplica < 1) {
            throw new IllegalArgumentException("maxBlocksPerReplica must be at least 1, was " + maxBlocksPerReplica);
        }
        if (!(loadFactor >= 1) || Double.isInfinite(loadFactor)) {
            throw new IllegalArgumentException("loadFactor must be a finite number >= 1, was " + loadFactor);
        }
    }

    /** 256-character blocks, 10,000 blocks per replica, load factor 1.5. */
    public static PrefixAffinitySettings defaults() {
        return new PrefixAffinitySettings(256, 10_000, 1.5);
    }
}
