package io.cachegate.config;

import java.time.Duration;
import java.util.Objects;

/**
 * Several gateways over one shared store ({@code cache.fleet}).
 *
 * @param coalesce identical misses in flight at different gateways make one upstream call: a Redis lease per key,
 *                 taken by the first; the others wait for its entry. Only with a {@code redis} or {@code tiered}
 *                 store (an in-memory store is not shared)
 * @param maxWait how long a gateway waits for another's answer at most (also never longer than the backend's total
 *                timeout) before it calls the backend itself; also the longest a lease is renewed
 * @param maxWaiters requests of one gateway waiting at once; beyond it a request calls the backend itself
 * @param leaseTtl a lease's lifetime, renewed by its live holder: how soon the waiters take over from a dead one
 * @param shareEvidence the semantic error budget's evidence (verdicts, demoted entries) goes to a Redis stream, and
 *                      each gateway files the others': with a {@code redis} or {@code tiered} store
 * @param evidenceEvents the shared stream is trimmed to about this many pieces of evidence
 */
public record FleetSettings(boolean coalesce, Duration maxWait, int maxWaiters, Duration leaseTtl,
                            boolean shareEvidence, long evidenceEvents) {

    public FleetSettings {
        Objects.requireNonNull(maxWait, "maxWait");
        Objects.requireNonNull(leaseTtl, "leaseTtl");
        if (maxWaiters < 1) {
            throw new IllegalArgumentException("maxWaiters must be positive, was " + maxWaiters);
        }
        if (evidenceEvents < 1) {
            throw new IllegalArgumentException("evidenceEvents must be positive, was " + evidenceEvents);
        }
    }

    /** Every key of {@code cache.fleet} at its default (see {@code CacheKeys}). */
    public static FleetSettings defaults() {
        return new FleetSettings(CacheKeys.FLEET_COALESCE.fallback(), CacheKeys.FLEET_MAX_WAIT.fallback(),
                CacheKeys.FLEET_MAX_WAITERS.fallback(), CacheKeys.FLEET_LEASE_TTL.fallback(),
                CacheKeys.FLEET_SHARE_EVIDENCE.fallback(), CacheKeys.FLEET_EVIDENCE_EVENTS.fallback());
    }
}
