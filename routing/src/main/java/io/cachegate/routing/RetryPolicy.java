package io.cachegate.routing;

import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Whether to retry a failed upstream attempt: only failures before the first byte reached the client,
 * at most {@code maxAttempts} attempts in all, with exponential backoff and "equal jitter" (half the
 * delay fixed, half random) so retries of a burst do not land together. A pure function.
 *
 * @param maxAttempts attempts in all, the first included (1 disables retries)
 * @param baseBackoff the delay before the first retry, before jitter
 * @param maxBackoff the cap on the delay before jitter, doubling per attempt until then
 */
public record RetryPolicy(int maxAttempts, Duration baseBackoff, Duration maxBackoff) {

    public static final int DEFAULT_MAX_ATTEMPTS = 2;
    public static final Duration DEFAULT_BASE_BACKOFF = Duration.ofMillis(50);
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(1);

    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
        }
        Objects.requireNonNull(baseBackoff, "baseBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        if (baseBackoff.isNegative() || maxBackoff.compareTo(baseBackoff) < 0) {
            throw new IllegalArgumentException("need 0 <= baseBackoff <= maxBackoff, were " + baseBackoff
                    + " and " + maxBackoff);
        }
    }

    /** 2 attempts in all, 50 ms base backoff, 1 s cap. */
    public static RetryPolicy defaults() {
        return new RetryPolicy(DEFAULT_MAX_ATTEMPTS, DEFAULT_BASE_BACKOFF, DEFAULT_MAX_BACKOFF);
    }

    /**
     * @param attempt the number of the attempt that just failed, 1 for the first
     * @param kind how it failed
     * @param random the jitter source (a seeded one in tests)
     */
    public RetryDecision decide(int attempt, FailureKind kind, RandomGenerator random) {
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be at least 1, was " + attempt);
        }
        if (!kind.retryable() || attempt >= maxAttempts) {
            return RetryDecision.stop();
        }
        long base = baseBackoff.toNanos();
        long cap = maxBackoff.toNanos();
        int doublings = Math.min(attempt - 1, 62);
        long delay = base > (cap >> doublings) ? cap : Math.min(cap, base << doublings);
        long half = delay / 2;
        long jitter = half + (delay - half == 0 ? 0 : random.nextLong(delay - half + 1));
        return RetryDecision.retryAfter(Duration.ofNanos(jitter));
    }
}
