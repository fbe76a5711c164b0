package io.cachegate.admission;

import java.util.Iterator;

/**
 * The waiting requests of one class, in fair order between tenants ({@link TenantQueues}), with their token total,
 * the class's share credit, its arrival rate and its requests in flight against its in-flight cap. Guarded by the
 * controller's lock.
 */
final class ClassQueue {

    /** One whole dispatch in credit units: shares are kept in millionths to stay exact. */
    static final long UNIT = 1_000_000;
    /** An in-flight cap that never binds. */
    static final int NO_CAP = Integer.MAX_VALUE;
    /** Absorbs binary rounding, so that 0.29 of 100 is 29 and not 28. */
    private static final double ROUNDING_SLACK = 1e-9;

    final ClassSettings settings;
    final int rank;
    final long maxQueueNanos;
    final long shareUnits;
    /** The share of the pool's request capacity this class may hold; 1 for no cap. */
    final double maxInflightShare;
    /** Tokens admitted or queued per second, for the wait estimate of the classes below. */
    final ArrivalRate arrivals;
    private final TenantQueues waiting = new TenantQueues();
    private long tokens;
    long credit;
    /** Admitted and not yet released. */
    int inflight;

    ClassQueue(ClassSettings settings, int rank, ArrivalRate arrivals) {
        this.settings = settings;
        this.rank = rank;
        this.arrivals = arrivals;
        this.maxQueueNanos = Nanos.of(settings.maxQueueTime());
        this.shareUnits = Math.round(settings.share() * UNIT);
        this.maxInflightShare = settings.maxInflightShare();
    }

    /**
     * {@code max(1, floor(share × capacity))}, or {@link #NO_CAP} for share 1 or an unknown capacity: a
     * share of 1 then behaves exactly as before caps existed, whatever the gate's own limit.
     */
    static int inflightCap(double maxInflightShare, int capacityRequests) {
        if (maxInflightShare >= 1 || capacityRequests == AdmissionSettings.UNKNOWN_CAPACITY) {
            return NO_CAP;
        }
        return Math.max(1, (int) Math.floor(maxInflightShare * capacityRequests + ROUNDING_SLACK));
    }

    /**
     * At its in-flight cap of the pool's {@code capacityRequests} now: not dispatched from, and owed no share
     * credit, until a request of it is released (or the capacity grows, when it is adaptive).
     */
    boolean capped(int capacityRequests) {
        return inflight >= inflightCap(maxInflightShare, capacityRequests);
    }

    /** The fraction of the drain rate the cap allows ({@code cap / capacity}), 1 without a cap. */
    double inflightFraction(int capacityRequests) {
        int cap = inflightCap(maxInflightShare, capacityRequests);
        return cap == NO_CAP ? 1 : (double) cap / capacityRequests;
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

    /** The next request to dispatch: the tenants' turns in fair order. */
    Ticket head() {
        return waiting.head();
    }

    /** The request waiting longest. */
    Ticket oldest() {
        return waiting.oldest();
    }

    /** Queues {@code ticket} in {@code lane} (its tenant's, or one for all) at the tenant's {@code weight}. */
    void add(Ticket ticket, String lane, double weight) {
        waiting.add(ticket, lane, weight);
        tokens += ticket.request().tokens();
    }

    /** Removes the head for dispatch. */
    void dispatch(Ticket head) {
        waiting.dispatched(head);
        remove(head);
    }

    /** See {@link TenantQueues#tokensAhead}. */
    long tokensAhead(String lane, long cost, double weight) {
        return waiting.tokensAhead(lane, cost, weight);
    }

    /** See {@link TenantQueues#overShare}. */
    Ticket overShare(String lane, long cost, double weight) {
        return waiting.overShare(lane, cost, weight);
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
