package io.cachegate.admission;

/**
 * The rate at which the backend finishes work, in tokens per second: an EWMA of samples, each the
 * tokens released during at least {@code window} of busy time divided by that busy time. Only time
 * when a dispatchable request was waiting counts as busy: then the pool is saturated and releases
 * measure its real capacity, whereas releases of an idle pool only measure the offered load. A sample
 * closes on a release, never on a timer, so long generations do not produce empty samples; the first
 * sample replaces the prior. Guarded by the controller's lock.
 */
final class DrainRate {

    /** Floor so that a wait estimate is always finite. */
    static final double MIN_RATE = 1;

    private final long windowNanos;
    private final double alpha;
    private double rate;
    private boolean measured;
    private boolean busy;
    private long lastNanos;
    private long busyNanos;
    private long tokens;

    DrainRate(double prior, long windowNanos, double alpha, long now) {
        this.rate = prior;
        this.windowNanos = windowNanos;
        this.alpha = alpha;
        this.lastNanos = now;
    }

    /** Tokens per second, never below {@link #MIN_RATE}. */
    double rate() {
        return Math.max(MIN_RATE, rate);
    }

    boolean measured() {
        return measured;
    }

    /** Records whether the pool is saturated from {@code now} on. */
    void busy(long now, boolean busyFromNow) {
        accrue(now);
        busy = busyFromNow;
    }

    /** Records tokens finished at {@code now}; they count only if the pool was saturated. */
    void released(long now, long releasedTokens) {
        accrue(now);
        if (!busy) {
            return;
        }
        tokens += releasedTokens;
        if (busyNanos >= windowNanos) {
            double sample = tokens * 1e9 / busyNanos;
            rate = measured ? alpha * sample + (1 - alpha) * rate : sample;
            measured = true;
            tokens = 0;
            busyNanos = 0;
        }
    }

    private void accrue(long now) {
        if (busy) {
            busyNanos += Math.max(0, now - lastNanos);
        }
        lastNanos = now;
    }
}
