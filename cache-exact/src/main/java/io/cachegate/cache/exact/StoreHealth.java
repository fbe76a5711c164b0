package io.cachegate.cache.exact;

import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a remote store reports for metrics and the admin page: whether it is reachable now and how
 * many operations failed (each one served as a miss). The gateway creates it and reads it; the
 * store writes it.
 */
public final class StoreHealth {

    private final LongAdder errors = new LongAdder();
    private final AtomicReference<String> lastError = new AtomicReference<>("");
    private volatile boolean available;

    /** Starts unavailable: a remote store is available once it has connected. */
    public StoreHealth() {
    }

    /** True while the store is connected. */
    public boolean available() {
        return available;
    }

    /** Operations failed since start (timeouts, rejections, connection errors, corrupt entries). */
    public long errors() {
        return errors.sum();
    }

    /** The message of the latest failure, empty when none yet. */
    public String lastError() {
        return lastError.get();
    }

    void available(boolean value) {
        available = value;
    }

    void recordError(Throwable error) {
        errors.increment();
        lastError.set(String.valueOf(error.getMessage()));
    }
}
