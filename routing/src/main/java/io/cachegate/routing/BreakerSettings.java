package io.cachegate.routing;

import java.time.Duration;
import java.util.Objects;

/**
 * When a replica is ejected and for how long.
 *
 * @param failureThreshold consecutive failures (passive) that open the circuit of a closed replica
 * @param coolDown how long an open circuit stays open before one trial is let through
 */
public record BreakerSettings(int failureThreshold, Duration coolDown) {

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
    }

    /** 5 consecutive failures, 10 s cool-down. */
    public static BreakerSettings defaults() {
        return new BreakerSettings(DEFAULT_FAILURE_THRESHOLD, DEFAULT_COOL_DOWN);
    }
}
