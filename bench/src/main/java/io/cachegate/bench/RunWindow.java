package io.cachegate.bench;

import java.time.Duration;

/**
 * The phases of a run on the {@link System#nanoTime()} scale: warmup from {@code start}, recorded
 * traffic from {@code warmupEnd} until {@code end}, then in-flight requests drain until at most
 * {@code deadline}, when whatever is left is cut off.
 */
record RunWindow(long startNanos, long warmupEndNanos, long endNanos, long deadlineNanos) {

    /** Past {@code end}, how long draining may take beyond the request timeout. */
    static final Duration DRAIN_GRACE = Duration.ofSeconds(2);

    static RunWindow of(long startNanos, Duration warmup, Duration duration, Duration requestTimeout) {
        long warmupEnd = startNanos + warmup.toNanos();
        long end = warmupEnd + duration.toNanos();
        return new RunWindow(startNanos, warmupEnd, end, end + requestTimeout.toNanos() + DRAIN_GRACE.toNanos());
    }

    /** Whether a request whose latency clock starts at {@code nanos} belongs to the recorded phase. */
    boolean isRecorded(long nanos) {
        return nanos - warmupEndNanos >= 0 && nanos - endNanos < 0;
    }

    boolean inWarmup(long nanos) {
        return nanos - warmupEndNanos < 0;
    }
}
