package io.cachegate.routing;

import java.net.URI;

/**
 * One replica's mutable routing state. Counters and breaker are guarded by the owning
 * {@link ReplicaSet}'s lock; the prefix index has its own.
 */
final class Replica {

    final URI uri;
    final int position;
    final CircuitBreaker breaker;
    final PrefixIndex index;
    /** Its URL's hash, for {@link Rendezvous}: the same in every gateway. */
    final long placementHash;
    /** Null when the set's capacity is fixed. */
    final AdaptiveCapacity adaptive;
    int inflightRequests;
    long inflightTokens;
    /**
     * Prompt tokens this gateway's requests there still have to prefill: what kv_aware sent uncached and whose
     * answer has not begun. An engine prefills one step at a time, so they are the queue a new prompt's prefill waits
     * behind; decoding requests, the rest of {@link #inflightTokens}, delay it far less.
     */
    long prefillBacklog;
    long externalTokens;
    long externalAt;
    boolean externalKnown;
    /** A load report with requests waiting in the replica that no latency sample has taken into account yet. */
    boolean waitingReported;

    Replica(URI uri, int position, BreakerSettings breaker, int indexEntries, AdaptiveCapacity adaptive) {
        this.uri = uri;
        this.adaptive = adaptive;
        this.position = position;
        this.breaker = new CircuitBreaker(breaker);
        this.index = new PrefixIndex(indexEntries);
        this.placementHash = Rendezvous.replicaHash(uri.toString());
    }

    /** In-flight tokens plus the replica's own fresh load report, the quantity balancing compares. */
    long load(long now, long staleNanos) {
        return externalKnown && now - externalAt <= staleNanos ? saturatedAdd(inflightTokens, externalTokens)
                : inflightTokens;
    }

    /**
     * Room for {@code cost} more tokens and one more request. An idle replica takes any single request,
     * however large, so a request costlier than the token limit is slow rather than never served.
     */
    boolean hasRoom(long cost, int maxConcurrency, long maxInflightTokens) {
        if (inflightRequests >= requestLimit(maxConcurrency)) {
            return false;
        }
        long after = saturatedAdd(inflightTokens, cost);
        return inflightRequests == 0 || after <= maxInflightTokens;
    }

    /** The fixed {@code maxConcurrency}, or the adaptive limit now. */
    int requestLimit(int maxConcurrency) {
        return adaptive == null ? maxConcurrency : adaptive.limit();
    }

    /**
     * True once per load report that said requests wait in the replica: one report lowers an adaptive limit
     * once (as one queued answer does), however many answers come before the next report.
     */
    boolean takeWaitingReport() {
        boolean reported = waitingReported;
        waitingReported = false;
        return reported;
    }

    static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }
}
