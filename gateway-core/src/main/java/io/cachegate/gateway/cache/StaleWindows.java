package io.cachegate.gateway.cache;

import java.time.Duration;

/**
 * How long past its TTL an entry of a request's route may still answer: when the backend cannot ({@code
 * stale_if_error}) and at once while one background call refreshes it ({@code stale_while_revalidate}); the route's
 * values, else the policy's. Zero turns either off.
 */
public record StaleWindows(Duration ifError, Duration whileRevalidate) {

    public static final StaleWindows NONE = new StaleWindows(Duration.ZERO, Duration.ZERO);

    /** How long past its TTL the store keeps an entry: the longer window (zero: only while fresh). */
    public Duration keep() {
        return ifError.compareTo(whileRevalidate) >= 0 ? ifError : whileRevalidate;
    }
}
