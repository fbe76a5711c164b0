package io.cachegate.config;

import java.time.Duration;
import java.util.Objects;

/**
 * Upstream call timeouts: TCP connect, wait for the first response byte, silence between bytes
 * of a stream, and the whole call.
 */
public record Timeouts(Duration connect, Duration firstByte, Duration idle, Duration total) {

    public Timeouts {
        Objects.requireNonNull(connect, "connect");
        Objects.requireNonNull(firstByte, "firstByte");
        Objects.requireNonNull(idle, "idle");
        Objects.requireNonNull(total, "total");
    }

    /** Connect 2s, first byte 60s, idle 30s, total 10m. */
    public static Timeouts defaults() {
        return new Timeouts(Duration.ofSeconds(2), Duration.ofSeconds(60), Duration.ofSeconds(30),
                Duration.ofMinutes(10));
    }
}
