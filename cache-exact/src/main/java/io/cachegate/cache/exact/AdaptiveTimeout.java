package io.cachegate.cache.exact;

import io.cachegate.config.Ticker;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The Redis store's command timeout, following its measured latency: {@code multiple} times the p99 of the last few
 * seconds of command latencies, clamped to {@code [min, max]}. A starved CPU or a busy Redis raises the p99 and so
 * the timeout, instead of every command timing out and the store reading as dead.
 *
 * <p>Samples go into a lock-free HdrHistogram {@link Recorder} from any thread; every {@link #INTERVAL} the caller
 * that notices rolls the interval into a ring of {@link #INTERVALS} and recomputes the timeout (microseconds of
 * work, off no lock the event loops wait on). A command that timed out is recorded at the time it was given: its
 * latency is at least that, and without it a step in latency beyond the current timeout would never be seen.
 */
final class AdaptiveTimeout {

    /** How often the timeout is recomputed. */
    static final Duration INTERVAL = Duration.ofSeconds(1);
    /** Intervals the p99 covers: the last 5 seconds, so a stall is forgotten soon after it ends. */
    static final int INTERVALS = 5;
    private static final long HIGHEST_MICROS = TimeUnit.MINUTES.toMicros(1);

    private final long minNanos;
    private final long maxNanos;
    private final double multiple;
    private final Ticker ticker;
    private final LongConsumer changed;
    private final Recorder recorder = new Recorder(HIGHEST_MICROS, 2);
    private final Histogram[] ring = new Histogram[INTERVALS];
    private final Histogram window = new Histogram(HIGHEST_MICROS, 2);
    private final AtomicLong nextRoll;
    private Histogram recycled;
    private int newest;
    private volatile long timeoutNanos;

    /** Starts at {@code min}; {@code changed} hears every new timeout, in nanoseconds. */
    AdaptiveTimeout(Duration min, Duration max, double multiple, Ticker ticker, LongConsumer changed) {
        if (min.isZero() || min.isNegative()) {
            throw new IllegalArgumentException("min must be positive, was " + min);
        }
        if (multiple < 1) {
            throw new IllegalArgumentException("multiple must be at least 1, was " + multiple);
        }
        this.minNanos = min.toNanos();
        this.maxNanos = Math.max(minNanos, max.toNanos()); // a configured timeout above the maximum wins
        this.multiple = multiple;
        this.ticker = ticker;
        this.changed = changed;
        for (int i = 0; i < INTERVALS; i++) {
            ring[i] = new Histogram(HIGHEST_MICROS, 2);
        }
        this.nextRoll = new AtomicLong(ticker.nanos() + INTERVAL.toNanos());
        this.timeoutNanos = minNanos;
        changed.accept(minNanos);
    }

    /** The timeout a command sent now gets. */
    long nanos() {
        roll();
        return timeoutNanos;
    }

    /** One command's latency: an answer's, or a timed-out command's time so far. */
    void record(long latencyNanos) {
        recorder.recordValue(Math.min(HIGHEST_MICROS, Math.max(1, TimeUnit.NANOSECONDS.toMicros(latencyNanos))));
        roll();
    }

    /** Rolls the intervals that have passed, when they have; one caller does it, the others go on at once. */
    private void roll() {
        long now = ticker.nanos();
        long due = nextRoll.get();
        if (now - due < 0 || !nextRoll.compareAndSet(due, Long.MAX_VALUE)) {
            return; // not yet, or another thread is rolling (nextRoll reads as far away meanwhile)
        }
        long interval = INTERVAL.toNanos();
        long passed = 1 + (now - due) / interval;
        synchronized (ring) { // only ever one roller (the CAS above); this is for the memory effects
            Histogram latest = recycled == null ? recorder.getIntervalHistogram() : recorder.getIntervalHistogram(recycled);
            for (long i = 0; i < Math.min(passed, INTERVALS); i++) {
                newest = (newest + 1) % INTERVALS;
                ring[newest].reset(); // intervals with no commands: empty
            }
            ring[newest].add(latest);
            recycled = latest;
            window.reset();
            for (Histogram h : ring) {
                window.add(h);
            }
            long next = window.getTotalCount() == 0 ? minNanos
                    : clamp((long) (multiple * TimeUnit.MICROSECONDS.toNanos(window.getValueAtPercentile(99))));
            if (next != timeoutNanos) {
                timeoutNanos = next;
                changed.accept(next);
            }
        }
        nextRoll.set(due + passed * interval);
    }

    private long clamp(long nanos) {
        return Math.max(minNanos, Math.min(maxNanos, nanos));
    }
}
