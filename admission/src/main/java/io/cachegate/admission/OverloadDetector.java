package io.cachegate.admission;

import io.cachegate.config.OverloadPolicy;

/**
 * The overload state machine: see {@link OverloadPolicy} for the rule. Dwell times are measured
 * between evaluations, so a signal that dips below (or rises above) the band for a single tick
 * restarts the count. Guarded by the controller's lock.
 */
final class OverloadDetector {

    private final long enterAgeNanos;
    private final long exitAgeNanos;
    private final long enterTokens;
    private final long exitTokens;
    private final long enterAfterNanos;
    private final long exitAfterNanos;
    private boolean overloaded;
    private boolean counting;
    private long since;

    OverloadDetector(OverloadPolicy s) {
        this.enterAgeNanos = Nanos.of(s.enterQueueAge());
        this.exitAgeNanos = Nanos.of(s.exitQueueAge());
        this.enterTokens = s.enterPendingTokens();
        this.exitTokens = s.exitPendingTokens();
        this.enterAfterNanos = Nanos.of(s.enterAfter());
        this.exitAfterNanos = Nanos.of(s.exitAfter());
    }

    boolean overloaded() {
        return overloaded;
    }

    /** Feeds one observation; true when it changed the state. */
    boolean evaluate(long now, long queueAgeNanos, long pendingTokens) {
        boolean pushing = overloaded
                ? queueAgeNanos > exitAgeNanos || pendingTokens > exitTokens
                : queueAgeNanos < enterAgeNanos && pendingTokens < enterTokens;
        if (pushing) {
            // The signal is on the side of the band that keeps the current state.
            counting = false;
            return false;
        }
        if (!counting) {
            counting = true;
            since = now;
        }
        if (now - since >= (overloaded ? exitAfterNanos : enterAfterNanos)) {
            overloaded = !overloaded;
            counting = false;
            return true;
        }
        return false;
    }
}
