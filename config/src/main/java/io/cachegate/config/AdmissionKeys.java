package io.cachegate.config;

import java.time.Duration;

/** The keys of {@code admission} and {@code admission.overload}; {@link AdmissionReader} reads them. */
final class AdmissionKeys {

    private static final double MAX_DRAIN_RATE = 1e9;
    private static final Duration HOUR = Duration.ofHours(1);
    private static final long MAX_TOKENS = 1_000_000_000_000L;

    static final Key<Boolean> ENABLED = Key.bool("enabled", true,
            "class queues in front of the backends (capacity found from measured latency unless max_concurrency is "
                    + "set); false: requests go upstream at once, classes only name a route's class");
    static final Key<Double> INITIAL_DRAIN_RATE = Key.decimal("initial_drain_rate", 1000, "(0, 1e9]",
            v -> v > 0 && v <= MAX_DRAIN_RATE, v -> v + " is out of range (0, 1e9] tokens per second",
            "tokens/s a backend is assumed to finish until measured; Retry-After estimates start from it; only when "
                    + "set here are requests turned away for a wait estimated from it (else from a measured rate only)");
    static final Key<Duration> MAX_RETRY_AFTER = Key.duration("max_retry_after", Duration.ofSeconds(60),
            Duration.ofSeconds(1), HOUR, "Retry-After never says more");
    static final Key<Boolean> FAIR_SHARE = Key.bool("fair_share", true,
            "within a class, tenants' waiting requests are served in fair order by token cost and "
                    + "tenants[].weight; false: first come, first served");
    static final Key<Duration> TICK = Key.duration("tick", Duration.ofMillis(20), Duration.ofMillis(1),
            Duration.ofSeconds(1), "how often queue timeouts and overload are checked").restart(); // scheduled once

    static final Key<Duration> ENTER_QUEUE_AGE = Key.duration("enter_queue_age", Duration.ofSeconds(1),
            Duration.ofMillis(1), HOUR, "overload starts when the oldest waiting request is this old...");
    static final Key<Long> ENTER_PENDING_TOKENS = Key.longInteger("enter_pending_tokens", 200_000, 1, MAX_TOKENS,
            "...or this many tokens wait...");
    static final Key<Duration> ENTER_AFTER = Key.duration("enter_after", Duration.ofSeconds(2), Duration.ZERO, HOUR,
            "...for this long");
    static final Key<Duration> EXIT_QUEUE_AGE = Key.duration("exit_queue_age", Duration.ofMillis(250), Duration.ZERO,
            HOUR, "it ends when the oldest waiting request is at most this old (below enter_queue_age)...");
    static final Key<Long> EXIT_PENDING_TOKENS = Key.longInteger("exit_pending_tokens", 50_000, 0, MAX_TOKENS,
            "...and at most this many tokens wait (below enter_pending_tokens)...");
    static final Key<Duration> EXIT_AFTER = Key.duration("exit_after", Duration.ofSeconds(10), Duration.ZERO, HOUR,
            "...for this long");

    static final Section OVERLOAD = Section.mapping("overload",
            "overload: pausable classes held, may_degrade classes sent to fallbacks",
            ENTER_QUEUE_AGE, ENTER_PENDING_TOKENS, ENTER_AFTER, EXIT_QUEUE_AGE, EXIT_PENDING_TOKENS, EXIT_AFTER);
    static final Section SECTION = Section.mapping("admission",
            "class queues with token-weighted cost in front of the backends",
            ENABLED, INITIAL_DRAIN_RATE, MAX_RETRY_AFTER, FAIR_SHARE, TICK).with(OVERLOAD).live();

    private AdmissionKeys() {
    }
}
