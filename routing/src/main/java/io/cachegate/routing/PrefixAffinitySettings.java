package io.cachegate.routing;

/**
 * Settings of {@link Balance#PREFIX_AFFINITY}.
 *
 * @param blockChars characters per hashed block; 256 approximates vLLM-scale 64-token blocks at about
 *     four characters per English token (fewer tokens per block for CJK text, where a character is
 *     about one token; only affinity precision depends on it)
 * @param maxBlocks blocks hashed at most per prompt, bounding the hashing cost of huge prompts
 * @param indexEntries block hashes remembered per replica (LRU); size it near the replica's KV cache
 *     capacity in tokens divided by the tokens per block
 * @param loadFactor with {@code loadSlackTokens}: the replica holding the longest prefix is skipped
 *     (least loaded instead) when its load exceeds {@code loadFactor × mean load of the other
 *     candidates + loadSlackTokens}
 * @param loadSlackTokens see {@code loadFactor}; keeps stickiness while every replica is nearly idle
 */
public record PrefixAffinitySettings(int blockChars, int maxBlocks, int indexEntries, double loadFactor,
                                     long loadSlackTokens) {

    public static final int DEFAULT_BLOCK_CHARS = 256;
    public static final int DEFAULT_MAX_BLOCKS = 1024;
    public static final int DEFAULT_INDEX_ENTRIES = 16_384;
    public static final double DEFAULT_LOAD_FACTOR = 1.5;
    public static final long DEFAULT_LOAD_SLACK_TOKENS = 4096;

    public PrefixAffinitySettings {
        if (blockChars < 1) {
            throw new IllegalArgumentException("blockChars must be at least 1, was " + blockChars);
        }
        if (maxBlocks < 1) {
            throw new IllegalArgumentException("maxBlocks must be at least 1, was " + maxBlocks);
        }
        if (indexEntries < 1) {
            throw new IllegalArgumentException("indexEntries must be at least 1, was " + indexEntries);
        }
        if (!(loadFactor >= 1.0) || Double.isInfinite(loadFactor)) {
            throw new IllegalArgumentException("loadFactor must be a finite number >= 1, was " + loadFactor);
        }
        if (loadSlackTokens < 0) {
            throw new IllegalArgumentException("loadSlackTokens must not be negative, was " + loadSlackTokens);
        }
    }

    /** 256-character blocks, 1024 blocks per prompt, 16384 entries per replica, factor 1.5, slack 4096 tokens. */
    public static PrefixAffinitySettings defaults() {
        return new PrefixAffinitySettings(DEFAULT_BLOCK_CHARS, DEFAULT_MAX_BLOCKS, DEFAULT_INDEX_ENTRIES,
                DEFAULT_LOAD_FACTOR, DEFAULT_LOAD_SLACK_TOKENS);
    }
}
