package io.cachegate.simulator;

/**
 * When tokens come out. Pure functions of the options and of what the caller observed, so tests
 * check the model itself rather than a wall clock.
 *
 * <p>Time to first token: {@code ttft + prefillPerToken × (promptTokens − cachedTokens)}, where
 * {@code cachedTokens} is the share of the prompt covered by prefix-cache hits (see
 * {@link #cachedTokens}). A block of {@code B} characters thus saves
 * {@code prefillPerToken × promptTokens × B / promptChars}: the issue's
 * {@code ttft_base + prefill_per_block × uncached_blocks}, with the existing per-token prefill
 * term as the only prefill knob. Without a prefix cache, {@code cachedTokens} is 0: the old model.
 *
 * <p>Time per output token: {@code max(tpot, running / tokensPerSecond)}. A replica decodes at most
 * {@code tokensPerSecond} tokens a second in total, shared by the {@code running} sequences; below
 * that load each sequence runs at {@code tpot}. {@code tokensPerSecond = 0} means unlimited.
 * The interval is read again after each token, so a sequence speeds up as others finish.
 */
final class LatencyModel {

    private final long ttftNanos;
    private final double prefillNanosPerToken;
    private final double tpotNanos;
    private final double tokensPerSecond;

    LatencyModel(long ttftMs, double prefillMsPerToken, double tpotMs, double tokensPerSecond) {
        this.ttftNanos = ttftMs * 1_000_000L;
        this.prefillNanosPerToken = prefillMsPerToken * 1_000_000d;
        this.tpotNanos = tpotMs * 1_000_000d;
        this.tokensPerSecond = tokensPerSecond;
    }

    LatencyModel(long ttftMs, double prefillMsPerToken, double tpotMs) {
        this(ttftMs, prefillMsPerToken, tpotMs, 0);
    }

    /** Nanoseconds from the start of generation to the first token, nothing cached. */
    long firstTokenDelayNanos(int promptTokens) {
        return firstTokenDelayNanos(promptTokens, 0);
    }

    /** Nanoseconds an embeddings call takes: the prefill of its tokens (an embedding model's whole cost). */
    long embedNanos(int promptTokens) {
        return (long) (prefillNanosPerToken * Math.max(0, promptTokens));
    }

    /** Nanoseconds from the start of generation to the first token when {@code cachedTokens} need no prefill. */
    long firstTokenDelayNanos(int promptTokens, int cachedTokens) {
        return ttftNanos + prefillNanos(promptTokens, cachedTokens);
    }

    /** The fixed part of the time to first token, in nanoseconds. */
    long ttftNanos() {
        return ttftNanos;
    }

    /** Nanoseconds of prefill for the prompt tokens not among {@code cachedTokens}. */
    long prefillNanos(int promptTokens, int cachedTokens) {
        int uncached = Math.max(0, promptTokens - Math.max(0, cachedTokens));
        return (long) (prefillNanosPerToken * uncached);
    }

    /**
     * The prompt tokens a prefix hit of {@code cachedChars} characters covers, the prompt's tokens
     * taken as spread evenly over its {@code promptChars} characters (the simulator has no tokenizer).
     */
    static int cachedTokens(int promptTokens, int promptChars, int cachedChars) {
        if (promptChars <= 0 || cachedChars <= 0) {
            return 0;
        }
        return (int) ((long) promptTokens * Math.min(cachedChars, promptChars) / promptChars);
    }

    /** The time per output token depends on the load: only with a throughput limit. */
    boolean sharesThroughput() {
        return tokensPerSecond > 0;
    }

    /** Nanoseconds between two output tokens of one sequence while {@code running} sequences decode. */
    double tokenIntervalNanos(int running) {
        if (tokensPerSecond <= 0) {
            return tpotNanos;
        }
        return Math.max(tpotNanos, Math.max(1, running) * 1e9 / tokensPerSecond);
    }

    /** Nanoseconds from the first token to token {@code index} (0-based) at a constant {@code tpot}. */
    long tokenOffsetNanos(int index) {
        return (long) (tpotNanos * index);
    }
}
