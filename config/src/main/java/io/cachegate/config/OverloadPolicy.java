package io.cachegate.config;

import java.time.Duration;
import java.util.Objects;

/**
 * When admission counts a backend as overloaded: it enters when the oldest waiting request is
 * {@code enterQueueAge} old or {@code enterPendingTokens} are waiting, held for {@code enterAfter};
 * it leaves when both are at or below the exit thresholds for {@code exitAfter}. Exit thresholds are
 * below enter thresholds so a signal hovering at one threshold cannot flip the state back and forth.
 */
public record OverloadPolicy(Duration enterQueueAge, Duration exitQueueAge, long enterPendingTokens,
                             long exitPendingTokens, Duration enterAfter, Duration exitAfter) {

    public OverloadPolicy {
        Objects.requireNonNull(enterQueueAge, "enterQueueAge");
        Objects.requireNonNull(exitQueueAge, "exitQueueAge");
        Objects.requireNonNull(enterAfter, "enterAfter");
        Objects.requireNonNull(exitAfter, "exitAfter");
        if (exitQueueAge.compareTo(enterQueueAge) >= 0) {
            throw new IllegalArgumentException("exitQueueAge " + exitQueueAge + " must be below enterQueueAge "
                    + enterQueueAge);
        }
        if (exitPendingTokens < 0 || exitPendingTokens >= enterPendingTokens) {
            throw new IllegalArgumentException("exitPendingTokens " + exitPendingTokens
                    + " must be in [0, enterPendingTokens " + enterPendingTokens + ")");
        }
    }

    /** Enter at 1s queue age or 200,000 pending tokens held for 2s; leave at 250ms and 50,000 held for 10s. */
    public static OverloadPolicy defaults() {
        return new OverloadPolicy(Duration.ofSeconds(1), Duration.ofMillis(250), 200_000, 50_000,
                Duration.ofSeconds(2), Duration.ofSeconds(10));
    }
}
