package io.cachegate.routing;

import java.time.Duration;
import java.util.Objects;

/**
 * When a replica is ejected and for how long.
 *
 * @param failureThreshold consecutive failures (passive) that open the circuit of a closed replica
 * @param coolDown how long an open circuit stays open before one trial is let through
 * @param tenantsToEject how many different tenants those failures must come from: 2 when the policy has several
 *     tenants, so one tenant's bad requests cannot take a replica away from the others; 1 otherwise
 */
public record BreakerSettings(int failureThreshold, Duration coolDown, int tenantsToEject) {

    public static final int DEFAULT_FAILURE_THRESHOLD = 5;
    public static final Duration DEFAULT_COOL_DOWN = Duration.ofSeconds(10);

    public BreakerSettings {
        if (failureThreshold < 1) {
            throw new IllegalArgumentException("failureThreshold must be at least 1, was " + failureThreshold);
        }
        Objects.requireNonNull(coolDown, "coolDown");
        if (coolDown.isNegative()) {
            throw new IllegalArgumentException("coolDown must not be negative, was " + coolDown);
        }
        if (tenantsToEject < 1) {
            throw new IllegalArgumentException("tenantsToEject must be at least 1, was " + tenantsToEject);
        }
    }

    /** Failures from any one tenant count alone. */
    public BreakerSettings(int failureThreshold, Duration coolDown) {
        this(failureThreshold, coolDown, 1);
    }

    /** These settings with failures needed from {@code tenants} different tenants. */
    public BreakerSettings withTenantsToEject(int tenants) {
        return new BreakerSettings(failureThreshold, coolDown, tenants);
    }

    /** 5 consecutive failures, 10 s cool-down. */
    public static BreakerSettings defaults() {
        return new BreakerSettings(DEFAULT_FAILURE_THRESHOLD, DEFAULT_COOL_DOWN);
    }
}
