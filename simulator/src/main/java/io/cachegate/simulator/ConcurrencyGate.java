package io.cachegate.simulator;

import java.util.ArrayDeque;

/**
 * At most {@code maxActive} generations at once, the excess in a FIFO queue bounded by
 * {@code maxQueue}: a saturated replica. Shared by all event loops, hence the lock; the critical
 * sections are a few field updates, and a granted waiter is resumed outside the lock.
 */
final class ConcurrencyGate {

    /** Outcome of {@link #tryAcquire}. */
    enum Admission { GRANTED, QUEUED, REJECTED }

    /** A queued request; {@link #granted()} is called from any thread when it gets a slot. */
    interface Waiter {
        void granted();
    }

    private final int maxActive;
    private final int maxQueue;
    private final ArrayDeque<Waiter> waiting = new ArrayDeque<>();
    private int active;

    ConcurrencyGate(int maxActive, int maxQueue) {
        this.maxActive = maxActive;
        this.maxQueue = maxQueue;
    }

    synchronized Admission tryAcquire(Waiter waiter) {
        if (active < maxActive && waiting.isEmpty()) {
            active++;
            return Admission.GRANTED;
        }
        if (waiting.size() >= maxQueue) {
            return Admission.REJECTED;
        }
        waiting.addLast(waiter);
        return Admission.QUEUED;
    }

    /** Frees a slot; the first waiter, if any, takes it over (so {@code active} does not change). */
    void release() {
        Waiter next;
        synchronized (this) {
            next = waiting.pollFirst();
            if (next == null) {
                active--;
            }
        }
        if (next != null) {
            next.granted();
        }
    }

    /**
     * Removes a waiter that gave up. Returns false when it was already granted a slot, which the
     * caller then owns and must {@link #release()}.
     */
    synchronized boolean withdraw(Waiter waiter) {
        // O(queue length), but only on a disconnect while queued.
        return waiting.remove(waiter);
    }

    synchronized int active() {
        return active;
    }

    synchronized int queued() {
        return waiting.size();
    }
}
