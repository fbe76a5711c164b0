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

    /** 2 attempts in all, 25ms before the retry. */
    public static RetrySettings defaults() {
        return new RetrySettings(2, Duration.ofMillis(25));
    }
}
