package io.cachegate.config;

import java.time.Duration;
import java.util.Objects;

/**
 * The {@code admission} section: class queues with token-weighted cost in front of the backends.
 *
 * @param enabled true by default; when false, requests go upstream at once (classes then only name the route's
 *     class)
 * @param initialDrainRate tokens per second a backend is assumed to finish until one is measured;
 *     Retry-After estimates start from it
 * @param initialDrainRateSet whether the policy names {@code initial_drain_rate}: only then is a request turned away
 *     for a wait estimated from it; the default prior is a guess, so a fresh gateway sheds on a measured rate only
 * @param maxRetryAfter the ceiling of every Retry-After
 * @param tick how often queue timeouts and the overload state are checked
 * @param fairShare whether a class's waiting requests are served in fair order between tenants
 */
public record AdmissionPolicy(boolean enabled, OverloadPolicy overload, double initialDrainRate,
                              Duration maxRetryAfter, Duration tick, boolean fairShare, boolean initialDrainRateSet) {

    public AdmissionPolicy {
        Objects.requireNonNull(overload, "overload");
        Objects.requireNonNull(maxRetryAfter, "maxRetryAfter");
        Objects.requireNonNull(tick, "tick");
        if (!(initialDrainRate > 0) || Double.isInfinite(initialDrainRate)) {
            throw new IllegalArgumentException("initialDrainRate must be a positive number, was " + initialDrainRate);
        }
    }

    /** Every key of {@code admission} at its default (see {@code AdmissionKeys}): enabled. */
    public static AdmissionPolicy defaults() {
        return new AdmissionPolicy(AdmissionKeys.ENABLED.fallback(), OverloadPolicy.defaults(),
                AdmissionKeys.INITIAL_DRAIN_RATE.fallback(), AdmissionKeys.MAX_RETRY_AFTER.fallback(),
                AdmissionKeys.TICK.fallback(), AdmissionKeys.FAIR_SHARE.fallback(), false);
    }
}
