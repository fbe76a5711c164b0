package io.cachegate.config;

import java.time.Duration;
import java.util.Objects;

/**
 * Retries of an upstream call that failed before anything reached the client, on another replica.
 *
 * @param maxAttempts attempts in all, the first included; 1 disables retries
 * @param backoff the delay before the first retry (the gateway may grow and jitter it)
 */
public record RetrySettings(int maxAttempts, Duration backoff) {

    public RetrySettings {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
        }
        Objects.requireNonNull(backoff, "backoff");
    }

    /** Every key of {@code retries} at its default (see {@code BackendKeys}). */
    public static RetrySettings defaults() {
        return new RetrySettings(BackendKeys.MAX_ATTEMPTS.fallback(), BackendKeys.BACKOFF.fallback());
    }
}
