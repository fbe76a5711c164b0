package io.cachegate.routing;

import com.netflix.concurrency.limits.limit.VegasLimit;

/**
 * One replica's request limit found from measured latency, for a backend without {@code max_concurrency}:
 * TCP Vegas applied to concurrency, as Netflix's concurrency-limits library implements it. The limit grows
 * while time to first token stays near the least seen (the replica serves more without queueing) and shrinks
 * when it rises under load (requests queue inside the replica) or when the replica reports waiting requests.
 * The work a lower limit keeps out waits in the gateway's class queues, where priority applies.
 *
 * <p>Vegas rather than Gradient2: its baseline is the least latency seen, which for a model server is the time
 * to first token of an unqueued request, while Gradient2 compares with a long average that drifts up under
 * sustained overload and lets the queue in the backend grow. This class is the only one that sees the library. Not thread-safe: {@link ReplicaSet} calls it under its lock.
 */
final class AdaptiveCapacity {

    /** Where a replica starts: low enough for a small server; it grows by about one per two round trips. */
    static final int INITIAL_LIMIT = 8;

    private static final int PROBE_MULTIPLIER = 100_000;

    /**
     * A time to first token within this of the least seen reads as the least seen: no queue. A model server that
     * queues a request keeps it at least one decode step (tens of milliseconds); below a millisecond the differences
     * are the gateway's own event-loop delays and a busy core. Without it a backend answering in a few hundred
     * microseconds (a small model, an embedder, the simulator) read as queued whenever the gateway was busy, and its
     * limit shrank until half of a fully loaded gateway's requests waited in the class queue.
     */
    static final long NOISE_NANOS = 1_000_000;

    private final VegasLimit limit;
    private final int ceiling;
    private long least = Long.MAX_VALUE;

    /** A limit starting at {@link #INITIAL_LIMIT} (or {@code ceiling} if lower), never above {@code ceiling}. */
    AdaptiveCapacity(int ceiling) {
        if (ceiling < 1) {
            throw new IllegalArgumentException("ceiling must be at least 1, was " + ceiling);
        }
        this.ceiling = ceiling;
        this.limit = VegasLimit.newBuilder()
                .initialLimit(Math.min(INITIAL_LIMIT, ceiling))
                .maxConcurrency(ceiling)
                // A model server answers some requests at once and queues the rest, so at one limit some answers
                // show the unloaded latency and some a queue. Each unqueued answer adds 1/(2 x limit) (one per two
                // limits' worth of answers; TCP Vegas adds one per round trip) instead of the library's jump of
                // beta, and each queued one takes log10(limit), at least 1, off: the limit sits where almost none
                // queue, and probes above it slowly, as every probe queues a few requests in the replica.
                .thresholdFunction(l -> -1)
                .increaseFunction(l -> l + 0.5 / l)
                .decreaseFunction(l -> l - Math.max(1, Math.log10(l)))
                // The queue estimate limit x (1 - unloaded / measured latency), rounded up: below alpha the limit
                // grows, above beta it shrinks. Two thirds of the library's allowance (3 and 6 x log10 limit), with
                // floors so that latency noise alone (an estimate of 1 for any answer a little slower than the
                // least seen) still counts as room; an answer queued behind a full replica reads as 4 or more.
                .alphaFunction(l -> Math.max(2, (int) Math.round(2 * Math.log10(l))))
                .betaFunction(l -> Math.max(4, (int) Math.round(4 * Math.log10(l))))
                // The unloaded latency is the least seen. The library re-probes it (takes the latest sample) every
                // 30 x limit answers; a probe while the replica queues takes the queued latency for the unloaded
                // one and keeps the queue, so it is made rare (100000 x limit answers: hours).
                .probeMultiplier(PROBE_MULTIPLIER)
                .build();
    }

    /** The requests the replica may have in flight now, between 1 and the ceiling. */
    int limit() {
        return Math.max(1, Math.min(ceiling, limit.getLimit()));
    }

    /**
     * One answer's time to first token: {@code rttNanos} for a request sent at {@code startNanos} while
     * {@code inflight} requests (this one included) were on the replica. {@code backendQueued} when the
     * replica itself reports requests waiting: a sign of too many, whatever the latency says.
     */
    void onSample(long startNanos, long rttNanos, int inflight, boolean backendQueued) {
        if (rttNanos <= 0) {
            return; // the library rejects a zero sample; a clock that did not move says nothing
        }
        least = Math.min(least, rttNanos);
        long seen = rttNanos - least < NOISE_NANOS ? least : rttNanos;
        limit.onSample(startNanos, seen, inflight, backendQueued);
    }
}
