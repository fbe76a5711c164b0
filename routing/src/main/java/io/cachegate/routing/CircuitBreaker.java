package io.cachegate.routing;

import java.util.ArrayList;
import java.util.List;

/**
 * One replica's breaker: CLOSED → OPEN after {@code threshold} consecutive failures; OPEN for the
 * cool-down, then HALF_OPEN (noticed lazily, when next looked at); HALF_OPEN lets exactly one trial
 * request through, and its outcome (or a probe's) closes or reopens. A passing probe ends the cool-down early only
 * while no other replica is in. With {@code tenantsToEject} above 1, the
 * consecutive failures must also come from that many different tenants before they open a CLOSED circuit: one
 * tenant sending requests the backend fails on is that tenant's problem, not the replica's. Not thread-safe: the owning
 * {@link ReplicaSet} guards it with its lock. Times are {@link io.cachegate.config.Ticker#nanos()} readings.
 */
final class CircuitBreaker {

    private final int threshold;
    private final long coolDownNanos;
    private final int tenantsToEject;
    /** The different tenants of the current run of failures, up to {@code tenantsToEject}. */
    private final List<String> failingTenants = new ArrayList<>(2);
    private CircuitState state = CircuitState.CLOSED;
    private int consecutiveFailures;
    private long openedAt;
    /** The lease id of the trial in flight while HALF_OPEN; 0 when none. */
    private long trial;

    CircuitBreaker(BreakerSettings settings) {
        this.threshold = settings.failureThreshold();
        this.coolDownNanos = settings.coolDown().toNanos();
        this.tenantsToEject = settings.tenantsToEject();
    }

    /** The state as last noticed, without looking at the clock. */
    CircuitState current() {
        return state;
    }

    /** The state at {@code now}, moving OPEN to HALF_OPEN once the cool-down has passed. */
    CircuitState state(long now) {
        if (state == CircuitState.OPEN && now - openedAt >= coolDownNanos) {
            state = CircuitState.HALF_OPEN;
            trial = 0;
        }
        return state;
    }

    /** Whether a new request may go to this replica now (as the trial when HALF_OPEN). */
    boolean admits(long now) {
        CircuitState s = state(now);
        return s == CircuitState.CLOSED || (s == CircuitState.HALF_OPEN && trial == 0);
    }

    /** Call after {@link #admits}: makes lease {@code id} the trial when HALF_OPEN; returns whether it is. */
    boolean startTrial(long id) {
        if (state == CircuitState.HALF_OPEN && trial == 0) {
            trial = id;
            return true;
        }
        return false;
    }

    /** A trial lease released without a recorded outcome frees the slot for another trial. */
    void abandonTrial(long id) {
        if (state == CircuitState.HALF_OPEN && trial == id) {
            trial = 0;
        }
    }

    void success(long now) {
        CircuitState s = state(now);
        if (s == CircuitState.OPEN) {
            return; // a late answer from before the ejection proves nothing about now
        }
        close();
    }

    /**
     * A request failed. At the threshold a CLOSED circuit opens only when {@code mayOpen} (the set keeps its
     * last healthy replica in on request failures alone); the count keeps growing, so the next failure after
     * another replica is back opens it. The failures must also come from {@code tenantsToEject} tenants.
     */
    void failure(long now, boolean mayOpen, String tenant) {
        switch (state(now)) {
            case CLOSED -> {
                if (consecutiveFailures < Integer.MAX_VALUE) {
                    consecutiveFailures++;
                }
                if (failingTenants.size() < tenantsToEject && !failingTenants.contains(tenant)) {
                    failingTenants.add(tenant);
                }
                if (consecutiveFailures >= threshold && failingTenants.size() >= tenantsToEject && mayOpen) {
                    open(now);
                }
            }
            case HALF_OPEN -> open(now);
            case OPEN -> { } // already ejected: a late failure does not extend the cool-down
        }
    }

    /**
     * A failing probe opens (or re-arms) the circuit at once. A passing one closes a HALF_OPEN circuit, and an OPEN
     * one too when {@code noOtherIn} (no other replica of the set is closed; why: {@link ReplicaSet#recordProbe}).
     */
    void probe(boolean ok, long now, boolean noOtherIn) {
        CircuitState s = state(now);
        if (ok) {
            if (s == CircuitState.HALF_OPEN || (s == CircuitState.OPEN && noOtherIn)) {
                close();
            }
        } else {
            open(now);
        }
    }

    int consecutiveFailures() {
        return consecutiveFailures;
    }

    private void open(long now) {
        failingTenants.clear();
        state = CircuitState.OPEN;
        openedAt = now;
        trial = 0;
    }

    private void close() {
        if (state == CircuitState.CLOSED && consecutiveFailures == 0 && failingTenants.isEmpty()) {
            return; // the common case, every answer of a healthy replica: no write, so the event loops answering
                    // from this replica do not pass its cache line back and forth
        }
        state = CircuitState.CLOSED;
        consecutiveFailures = 0;
        failingTenants.clear();
        trial = 0;
    }
}
