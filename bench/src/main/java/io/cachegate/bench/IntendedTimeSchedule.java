package io.cachegate.bench;

/**
 * The open loop's arrival times: request {@code i} is due at {@code start + i / rate}, whatever
 * happened to the requests before it. Latency is measured from that intended time, so when the
 * generator or the server stalls, the requests that should have been sent meanwhile carry the
 * stall in their latency instead of silently not existing (no coordinated omission).
 *
 * <p>Pure arithmetic on nanosecond timestamps, so the rule is testable with any clock.
 */
final class IntendedTimeSchedule {

    private final long startNanos;
    private final double ratePerSecond;
    private final double nanosPerRequest;

    IntendedTimeSchedule(long startNanos, double ratePerSecond) {
        if (!(ratePerSecond > 0 && Double.isFinite(ratePerSecond))) {
            throw new IllegalArgumentException("ratePerSecond must be > 0 (was " + ratePerSecond + ")");
        }
        this.startNanos = startNanos;
        this.ratePerSecond = ratePerSecond;
        this.nanosPerRequest = 1e9 / ratePerSecond;
    }

    long startNanos() {
        return startNanos;
    }

    /** When request {@code index} (from 0) is due. */
    long intendedNanos(long index) {
        // index * 1e9 is exact up to 2^53, so rates like 3/s do not drift by truncation.
        return startNanos + Math.round(index * 1e9 / ratePerSecond);
    }

    /** How many requests are due at or before {@code nowNanos}: indices {@code 0 .. dueCount - 1}. */
    long dueCount(long nowNanos) {
        if (nowNanos < startNanos) {
            return 0;
        }
        long count = (long) ((nowNanos - startNanos) / nanosPerRequest) + 1;
        // Correct the floating-point estimate against intendedNanos, which is the definition.
        while (count > 0 && intendedNanos(count - 1) > nowNanos) {
            count--;
        }
        while (intendedNanos(count) <= nowNanos) {
            count++;
        }
        return count;
    }

    /** How many requests are due in {@code [startNanos, endNanos)}. */
    long countBefore(long endNanos) {
        return endNanos <= startNanos ? 0 : dueCount(endNanos - 1);
    }

    /**
     * The latency to record for a request that was due at {@code intendedNanos} and completed at
     * {@code completedNanos}, in microseconds (rounded to nearest). Never the time since the
     * actual send: a request sent late because the generator or a connection was busy is charged
     * the wait.
     */
    static long latencyMicros(long intendedNanos, long completedNanos) {
        return Math.max(0, (completedNanos - intendedNanos + 500) / 1_000);
    }
}
