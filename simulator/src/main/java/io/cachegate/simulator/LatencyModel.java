package io.cachegate.simulator;

/**
 * When tokens come out: the first after {@code ttft + prefill * promptTokens}, each later one
 * {@code tpot} after the previous. Deadlines are absolute (from the start of generation) so
 * scheduling jitter does not accumulate over a long answer.
 */
final class LatencyModel {

    private final long ttftNanos;
    private final double prefillNanosPerToken;
    private final double tpotNanos;

    LatencyModel(long ttftMs, double prefillMsPerToken, double tpotMs) {
        this.ttftNanos = ttftMs * 1_000_000L;
        this.prefillNanosPerToken = prefillMsPerToken * 1_000_000d;
        this.tpotNanos = tpotMs * 1_000_000d;
    }

    /** Nanoseconds from the start of generation to the first token. */
    long firstTokenDelayNanos(int promptTokens) {
        return ttftNanos + (long) (prefillNanosPerToken * promptTokens);
    }

    /** Nanoseconds from the first token to token {@code index} (0-based). */
    long tokenOffsetNanos(int index) {
        return (long) (tpotNanos * index);
    }
}
