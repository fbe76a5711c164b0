package io.cachegate.admission;

import java.util.Iterator;
import java.util.LinkedHashSet;

/**
 * The waiting requests of one class, oldest first, with their token total, the class's share
 * credit and its arrival rate. A {@link LinkedHashSet} gives FIFO order and O(1) removal of a cancelled
 * ticket. Guarded by the controller's lock.
 */
final class ClassQueue {

    /** One whole dispatch in credit units: shares are kept in millionths to stay exact. */
    static final long UNIT = 1_000_000;

    final ClassSettings settings;
    final int rank;
    final long maxQueueNanos;
    final long shareUnits;
    /** Tokens admitted or queued per second, for the wait estimate of the classes below. */
    final ArrivalRate arrivals;
    private final LinkedHashSet<Ticket> waiting = new LinkedHashSet<>();
    private long tokens;
    long credit;

    ClassQueue(ClassSettings settings, int rank, ArrivalRate arrivals) {
        this.settings = settings;
        this.rank = rank;
        this.arrivals = arrivals;
        this.maxQueueNanos = Nanos.of(settings.maxQueueTime());
        this.shareUnits = Math.round(settings.share() * UNIT);
    }

    String name() {
        return settings.name();
    }

    boolean isEmpty() {
        return waiting.isEmpty();
    }

    int size() {
        return waiting.size();
    }

    long tokens() {
        return tokens;
    }

    boolean paused(boolean overloaded) {
        return overloaded && settings.pausable();
    }

    /** Full for this request: at its request bound, or over its token bound unless the queue is empty. */
    boolean fullFor(long requestTokens) {
        return waiting.size() >= settings.maxQueueRequests()
                || (!waiting.isEmpty() && tokens + requestTokens > settings.maxQueueTokens());
    }

    Ticket head() {
        return waiting.isEmpty() ? null : waiting.iterator().next();
    }

    void add(Ticket ticket) {
        waiting.add(ticket);
        tokens += ticket.request().tokens();
    }

    boolean remove(Ticket ticket) {
        if (!waiting.remove(ticket)) {
            return false;
        }
        tokens -= ticket.request().tokens();
        if (waiting.isEmpty()) {
            // No banking while idle: a class that had nothing waiting is owed nothing.
            credit = 0;
        }
        return true;
    }

    Iterator<Ticket> iterator() {
        return waiting.iterator();
    }
}
