package io.cachegate.admission;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * When a pool counts as overloaded. It enters when the oldest waiting request's age or the pending
 * tokens are at or above an enter threshold at every tick for {@code enterAfter}; it leaves when both
 * are at or below the lower exit thresholds at every tick for {@code exitAfter}. Exit thresholds must
 * be below enter thresholds, so a signal hovering around one threshold cannot flip the state back and forth.
 * Only classes that are not pausable feed these signals (batch backlog is deferrable by design).
 */
public record OverloadSettings(Duration enterQueueAge, Duration exitQueueAge, long enterPendingTokens,
                               long exitPendingTokens, Duration enterAfter, Duration exitAfter) {

    public OverloadSettings {
        Objects.requireNonNull(enterQueueAge, "enterQueueAge");
        Objects.requireNonNull(exitQueueAge, "exitQueueAge");
        Objects.requireNonNull(enterAfter, "enterAfter");
        Objects.requireNonNull(exitAfter, "exitAfter");
        List<String> problems = new ArrayList<>();
        if (exitQueueAge.isNegative() || exitQueueAge.compareTo(enterQueueAge) >= 0) {
            problems.add("exitQueueAge must be in [0, enterQueueAge), was " + exitQueueAge + " with enterQueueAge "
                    + enterQueueAge);
        }
        if (exitPendingTokens < 0 || exitPendingTokens >= enterPendingTokens) {
            problems.add("exitPendingTokens must be in [0, enterPendingTokens), was " + exitPendingTokens
                    + " with enterPendingTokens " + enterPendingTokens);
        }
        if (enterAfter.isNegative()) {
            problems.add("enterAfter must not be negative, was " + enterAfter);
        }
        if (exitAfter.isNegative()) {
            problems.add("exitAfter must not be negative, was " + exitAfter);
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("overload: " + String.join("; ", problems));
        }
    }

    /** Enter at 1 s queue age or 200,000 pending tokens held for 2 s; leave below 250 ms and 50,000 held for 10 s. */
    public static OverloadSettings defaults() {
        return new OverloadSettings(Duration.ofSeconds(1), Duration.ofMillis(250), 200_000, 50_000,
                Duration.ofSeconds(2), Duration.ofSeconds(10));
    }
}
