package io.cachegate.admission;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A consistent view of one controller for gauges: queue depth, queued tokens, oldest wait and requests
 * in flight per class, rejections by reason (counters since creation), overload state, dispatches and drain rate.
 *
 * @param drainRate estimated tokens per second (the prior until first measured)
 */
public record AdmissionSnapshot(boolean overloaded, double drainRate, boolean drainRateMeasured, long dispatched,
                                int inflightRequests, long inflightTokens, Map<RejectReason, Long> rejections,
                                List<ClassStats> classes) {

    public AdmissionSnapshot {
        rejections = Map.copyOf(rejections);
        classes = List.copyOf(classes);
    }

    /**
     * One class's queue, listed in dispatch priority order.
     *
     * @param inflight its requests admitted and not yet released
     */
    public record ClassStats(String name, int queued, long queuedTokens, Duration oldestWait, boolean paused,
                             int inflight) {

        /** Without an in-flight count (0). */
        public ClassStats(String name, int queued, long queuedTokens, Duration oldestWait, boolean paused) {
            this(name, queued, queuedTokens, oldestWait, paused, 0);
        }
    }

    public ClassStats classStats(String name) {
        for (ClassStats c : classes) {
            if (c.name().equals(name)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown class " + name);
    }
}
