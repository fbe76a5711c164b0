package io.cachegate.config;

import java.time.Duration;
import java.util.Objects;

/**
 * When the Redis exact-cache store counts as degraded, and how long its commands may take
 * ({@code cache.exact.health}). The store judges itself over its last {@code window} operations: it is
 * degraded (operations fail fast, a miss) once at least {@code minCalls} of them are in the window and
 * {@code failureRate} of them failed or {@code slowCallRate} of them were slow; after {@code openFor} it
 * lets {@code probes} operations through, and is healthy again when they pass.
 *
 * @param window operations the decision looks back on
 * @param minCalls operations needed in the window before it decides anything (at most {@code window})
 * @param failureRate share of failed operations (timeouts, refusals, lost connections) that degrades the store
 * @param slowCallRate share of slow operations that degrades the store
 * @param slowCall an operation is slow when it takes longer than this share of the current command timeout
 * @param openFor how long a degraded store fails fast before it probes
 * @param probes operations let through to probe a degraded store; all of them decide
 * @param timeoutMax the command timeout never grows beyond this (nor shrinks below {@code cache.exact.timeout})
 * @param timeoutMultiple the command timeout is this many times the recent p99 of command latency
 */
public record StoreHealthSettings(int window, int minCalls, double failureRate, double slowCallRate, double slowCall,
                                  Duration openFor, int probes, Duration timeoutMax, double timeoutMultiple) {

    public StoreHealthSettings {
        Objects.requireNonNull(openFor, "openFor");
        Objects.requireNonNull(timeoutMax, "timeoutMax");
        if (window < 1 || minCalls < 1 || minCalls > window) {
            throw new IllegalArgumentException("need 1 <= minCalls <= window, was minCalls " + minCalls + ", window "
                    + window);
        }
        share(failureRate, "failureRate");
        share(slowCallRate, "slowCallRate");
        share(slowCall, "slowCall");
        if (probes < 1) {
            throw new IllegalArgumentException("probes must be positive, was " + probes);
        }
        if (!(timeoutMultiple >= 1)) {
            throw new IllegalArgumentException("timeoutMultiple must be at least 1, was " + timeoutMultiple);
        }
    }

    /** Every key of {@code cache.exact.health} at its default (see {@code CacheKeys}). */
    public static StoreHealthSettings defaults() {
        return new StoreHealthSettings(CacheKeys.HEALTH_WINDOW.fallback(), CacheKeys.HEALTH_MIN_CALLS.fallback(),
                CacheKeys.HEALTH_FAILURE_RATE.fallback(), CacheKeys.HEALTH_SLOW_CALL_RATE.fallback(),
                CacheKeys.HEALTH_SLOW_CALL.fallback(), CacheKeys.HEALTH_OPEN_FOR.fallback(),
                CacheKeys.HEALTH_PROBES.fallback(), CacheKeys.HEALTH_TIMEOUT_MAX.fallback(),
                CacheKeys.HEALTH_TIMEOUT_MULTIPLE.fallback());
    }

    private static void share(double value, String name) {
        if (!(value > 0 && value <= 1)) {
            throw new IllegalArgumentException(name + " must be in (0, 1], was " + value);
        }
    }
}
