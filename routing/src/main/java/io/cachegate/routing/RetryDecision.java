package io.cachegate.routing;

import java.time.Duration;
import java.util.Objects;

/**
 * What {@link RetryPolicy} says after a failed attempt: give up, or try again on another replica
 * (add the failed one to {@link RoutingRequest#exclude}) after {@code backoff}.
 */
public record RetryDecision(boolean retry, Duration backoff) {

    private static final RetryDecision STOP = new RetryDecision(false, Duration.ZERO);

    public RetryDecision {
        Objects.requireNonNull(backoff, "backoff");
    }

    public static RetryDecision stop() {
        return STOP;
    }

    public static RetryDecision retryAfter(Duration backoff) {
        return new RetryDecision(true, backoff);
    }
}
