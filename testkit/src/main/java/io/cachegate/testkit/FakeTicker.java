package io.cachegate.testkit;

import io.cachegate.config.Ticker;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Ticker} that moves only when a test says so, so tests of timeouts and expiry never sleep.
 * Its nanos start far from zero (code that treats them as absolute would show); its wall clock starts
 * at a fixed instant and moves with them. Thread-safe.
 */
public final class FakeTicker implements Ticker {

    /** The first {@link #nanos()} reading: large and not round. */
    public static final long START_NANOS = 1_234_567_890_123L;
    /** The first {@link #wallMillis()} reading unless a test gives its own: 2023-11-14T22:13:20Z. */
    public static final Instant DEFAULT_WALL_START = Instant.ofEpochMilli(1_700_000_000_000L);

    private final long wallStartMillis;
    private final AtomicLong elapsedNanos = new AtomicLong();

    /** Wall clock at {@link #DEFAULT_WALL_START}. */
    public FakeTicker() {
        this(DEFAULT_WALL_START);
    }

    /** Wall clock at {@code wallStart}. */
    public FakeTicker(Instant wallStart) {
        this.wallStartMillis = wallStart.toEpochMilli();
    }

    @Override
    public long nanos() {
        return START_NANOS + elapsedNanos.get();
    }

    @Override
    public long wallMillis() {
        return wallStartMillis + elapsedNanos.get() / 1_000_000L;
    }

    /** Moves both clocks forward by {@code d}; a monotonic clock never goes back, so it must not be negative. */
    public void advance(Duration d) {
        advanceNanos(d.toNanos());
    }

    /** Moves both clocks forward by {@code nanos}, which must not be negative. */
    public void advanceNanos(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("a ticker only moves forward; nanos was " + nanos);
        }
        elapsedNanos.addAndGet(nanos);
    }
}
