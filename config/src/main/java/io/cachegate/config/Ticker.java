package io.cachegate.config;

/**
 * The one source of time for the gateway and its modules, injected so that tests move time by hand instead of
 * sleeping. {@link #nanos()} is monotonic (only differences mean anything, like {@link System#nanoTime()});
 * {@link #wallMillis()} is the wall clock, for entry ages and expiry times that outlive the process.
 * It lives in {@code config} because every module depends on it and on nothing else of ours.
 */
public interface Ticker {

    /** Monotonic nanoseconds. */
    long nanos();

    /** Milliseconds since the epoch. */
    default long wallMillis() {
        return System.currentTimeMillis();
    }

    /** The JVM's clocks. */
    static Ticker system() {
        return SystemTicker.INSTANCE;
    }
}
