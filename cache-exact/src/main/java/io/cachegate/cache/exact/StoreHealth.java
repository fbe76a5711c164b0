package io.cachegate.cache.exact;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a remote store reports for metrics and the admin page: whether it is connected, where it stands in its health
 * decision ({@link StoreState}), its current command timeout, and how many operations failed (each one served as a
 * miss). The gateway creates it and reads it; the store writes it.
 */
public final class StoreHealth {

    private final LongAdder errors = new LongAdder();
    private final AtomicReference<String> lastError = new AtomicReference<>("");
    private final AtomicReference<StoreState> state = new AtomicReference<>(StoreState.HEALTHY);
    private final Map<StoreState, LongAdder> changes = new EnumMap<>(StoreState.class);
    private volatile boolean connected;
    private volatile long commandTimeoutNanos;

    /** Starts unavailable: a remote store is available once it has connected. */
    public StoreHealth() {
        for (StoreState s : StoreState.values()) {
            changes.put(s, new LongAdder());
        }
    }

    /** True while the store is connected and not degraded: operations reach it. */
    public boolean available() {
        return connected && state.get() != StoreState.DEGRADED;
    }

    /** True while the store is connected (it may still be degraded). */
    public boolean connected() {
        return connected;
    }

    /** Where the store stands in its health decision; an in-memory store is always healthy. */
    public StoreState state() {
        return state.get();
    }

    /** How many times the store has moved into {@code to} since start. */
    public long stateChanges(StoreState to) {
        return changes.get(to).sum();
    }

    /** The timeout a store command gets now (it follows measured latency); zero for a store without one. */
    public Duration commandTimeout() {
        return Duration.ofNanos(commandTimeoutNanos);
    }

    /** Operations failed since start (timeouts, rejections, connection errors, corrupt entries, fail-fast refusals). */
    public long errors() {
        return errors.sum();
    }

    /** The message of the latest failure, empty when none yet. */
    public String lastError() {
        return lastError.get();
    }

    void connected(boolean value) {
        connected = value;
    }

    /** Moves to {@code next}; returns whether that was a change (and counted it). */
    boolean state(StoreState next) {
        StoreState previous = state.getAndSet(next);
        if (previous == next) {
            return false;
        }
        changes.get(next).increment();
        return true;
    }

    void commandTimeoutNanos(long nanos) {
        commandTimeoutNanos = nanos;
    }

    void recordError(Throwable error) {
        errors.increment();
        lastError.set(String.valueOf(error.getMessage()));
    }
}
