package io.cachegate.config;

import java.time.Duration;
import java.util.Objects;

/**
 * An admission queue: requests of a lower {@code priority} number go first; a request waiting longer
 * than {@code maxQueueTime}, or arriving at a queue {@code maxQueueDepth} deep, is rejected with 429.
 */
public record TrafficClass(String name, int priority, Duration maxQueueTime, int maxQueueDepth) {

    public TrafficClass {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(maxQueueTime, "maxQueueTime");
    }

    /** The single class used when the policy declares none. */
    public static TrafficClass interactive() {
        return new TrafficClass("interactive", 0, Duration.ofSeconds(2), 1000);
    }
}
