package io.cachegate.admission;

/**
 * The tokens one class offers per second: an EWMA in continuous time, where each arrival adds
 * {@code tokens / tau} and the sum decays by {@code e^(-dt / tau)}. A steady stream of {@code r} tokens/s
 * converges to {@code r}; with no arrivals the rate fades toward 0, so it needs no timer: it is updated
 * on an arrival and read at any time. Starts at 0 (an unknown load counts as none). Guarded by the
 * controller's lock.
 */
final class ArrivalRate {

    private final double tauNanos;
    private double rate;
    private long lastNanos;

    ArrivalRate(double tauNanos, long now) {
        this.tauNanos = tauNanos;
        this.lastNanos = now;
    }

    /** Records {@code tokens} offered at {@code now}. */
    void arrived(long now, long tokens) {
        rate = rate(now) + tokens * 1e9 / tauNanos;
        lastNanos = Math.max(lastNanos, now);
    }

    /** Tokens per second at {@code now}. */
    double rate(long now) {
        long elapsed = Math.max(0, now - lastNanos);
        return elapsed == 0 ? rate : rate * Math.exp(-elapsed / tauNanos);
    }
}
