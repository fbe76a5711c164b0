package io.cachegate.admission;

/**
 * A monotonic clock in nanoseconds, injected so that tests drive time by hand instead of sleeping.
 * Only differences between two readings mean anything (like {@link System#nanoTime()}).
 */
@FunctionalInterface
public interface Ticker {

    long nanos();

    /** The JVM's monotonic clock. */
    static Ticker system() {
        return System::nanoTime;
    }
}
