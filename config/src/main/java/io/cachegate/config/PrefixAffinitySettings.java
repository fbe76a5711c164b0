package io.cachegate.config;

/**
 * How {@link Balance#PREFIX_AFFINITY} tracks which replica holds which prompt prefix. The last two
 * components are not policy keys: the policy always gets their defaults.
 *
 * @param blockChars characters per hashed prompt block; 256 approximates vLLM-scale 64-token blocks at about
 *     four characters per English token (fewer tokens per block for CJK text, where a character is about
 *     one token; only affinity precision depends on it)
 * @param maxBlocksPerReplica block hashes remembered per replica, least recently used dropped first; size
 *     it near the replica's KV cache capacity in tokens divided by the tokens per block
 * @param loadFactor with {@code loadSlackTokens}: the replica holding the longest prefix is passed over
 *     (least loaded instead) when its load exceeds {@code loadFactor × mean load of the other candidates
 *     + loadSlackTokens}; at least 1
 * @param maxBlocksPerPrompt blocks hashed at most per prompt, bounding the hashing cost of huge prompts
 * @param loadSlackTokens see {@code loadFactor}; keeps stickiness while every replica is nearly idle
 */
public record PrefixAffinitySettings(int blockChars, int maxBlocksPerReplica, double loadFactor,
                                     int maxBlocksPerPrompt, long loadSlackTokens) {

    public static final int DEFAULT_MAX_BLOCKS_PER_PROMPT = 1024;
    public static final long DEFAULT_LOAD_SLACK_TOKENS = 4096;

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
        if (maxBlocksPerPrompt < 1) {
            throw new IllegalArgumentException("maxBlocksPerPrompt must be at least 1, was " + maxBlocksPerPrompt);
        }
        if (loadSlackTokens < 0) {
            throw new IllegalArgumentException("loadSlackTokens must not be negative, was " + loadSlackTokens);
        }
    }

    /** The policy's settings, with the default per-prompt bound and slack. */
    public PrefixAffinitySettings(int blockChars, int maxBlocksPerReplica, double loadFactor) {
        this(blockChars, maxBlocksPerReplica, loadFactor, DEFAULT_MAX_BLOCKS_PER_PROMPT, DEFAULT_LOAD_SLACK_TOKENS);
    }

    /** Every key of {@code prefix_affinity} at its default (see {@code BackendKeys}). */
    public static PrefixAffinitySettings defaults() {
        return new PrefixAffinitySettings(BackendKeys.BLOCK_CHARS.fallback(),
                BackendKeys.MAX_BLOCKS_PER_REPLICA.fallback(), BackendKeys.LOAD_FACTOR.fallback());
    }
}
