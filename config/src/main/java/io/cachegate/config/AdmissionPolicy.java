package io.cachegate.config;

import java.time.Duration;
import java.util.Objects;

/**
 * The {@code admission} section: class queues with token-weighted cost in front of the backends.
 *
 * @param enabled when false, requests go upstream at once as they always did (classes then only
 *     name the route's class)
 * @param initialDrainRate tokens per second a backend is assumed to finish until one is measured;
 *     Retry-After estimates start from it
 * @param maxRetryAfter the ceiling of every Retry-After
 * @param tick how often queue timeouts and the overload state are checked
 */
public record AdmissionPolicy(boolean enabled, OverloadPolicy overload, double initialDrainRate,
                              Duration maxRetryAfter, Duration tick) {

    public AdmissionPolicy {
        Objects.requireNonNull(overload, "overload");
        Objects.requireNonNull(maxRetryAfter, "maxRetryAfter");
        Objects.requireNonNull(tick, "tick");
        if (!(initialDrainRate > 0) || Double.isInfinite(initialDrainRate)) {
            throw new IllegalArgumentException("initialDrainRate must be a positive number, was " + initialDrainRate);
        }
    }

    /** Disabled; default overload thresholds, 1000 tokens/s, Retry-After at most 60s, a 20ms tick. */
    public static AdmissionPolicy defaults() {
        return new AdmissionPolicy(false, OverloadPolicy.defaults(), 1000, Duration.ofSeconds(60),
                Duration.ofMillis(20));
    }
}
