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

    /** Every key of {@code timeouts} at its default (see {@code BackendKeys}). */
    public static Timeouts defaults() {
        return new Timeouts(BackendKeys.CONNECT.fallback(), BackendKeys.FIRST_BYTE.fallback(),
                BackendKeys.IDLE.fallback(), BackendKeys.TOTAL.fallback());
    }
}
