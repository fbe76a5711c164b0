package io.cachegate.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * When admission counts a backend as overloaded: it enters when the oldest waiting request is
 * {@code enterQueueAge} old or {@code enterPendingTokens} are waiting, at every tick for {@code enterAfter};
 * it leaves when both are at or below the exit thresholds at every tick for {@code exitAfter}. Exit
 * thresholds are below enter thresholds so a signal hovering at one threshold cannot flip the state back
 * and forth. Only classes that are not pausable feed these signals (batch backlog is deferrable by design).
 */
public record OverloadPolicy(Duration enterQueueAge, Duration exitQueueAge, long enterPendingTokens,
                             long exitPendingTokens, Duration enterAfter, Duration exitAfter) {

    public OverloadPolicy {
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

    /** Every key of {@code admission.overload} at its default (see {@code AdmissionKeys}). */
    public static OverloadPolicy defaults() {
        return new OverloadPolicy(AdmissionKeys.ENTER_QUEUE_AGE.fallback(), AdmissionKeys.EXIT_QUEUE_AGE.fallback(),
                AdmissionKeys.ENTER_PENDING_TOKENS.fallback(), AdmissionKeys.EXIT_PENDING_TOKENS.fallback(),
                AdmissionKeys.ENTER_AFTER.fallback(), AdmissionKeys.EXIT_AFTER.fallback());
    }
}
