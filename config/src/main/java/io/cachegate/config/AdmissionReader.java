package io.cachegate.config;

import java.time.Duration;
import java.util.Set;

/**
 * Reads the {@code admission} section. Overload exit thresholds must lie below the enter thresholds;
 * a violation is reported on the key the user wrote, so raising only an enter threshold below a
 * default exit threshold names the enter key and the default it collides with.
 */
final class AdmissionReader {

    private static final Set<String> KEYS = Set.of("enabled", "overload", "initial_drain_rate", "max_retry_after",
            "tick");
    private static final Set<String> OVERLOAD_KEYS = Set.of("enter_queue_age", "exit_queue_age",
            "enter_pending_tokens", "exit_pending_tokens", "enter_after", "exit_after");
    private static final double MAX_DRAIN_RATE = 1e9;

    private AdmissionReader() {
    }

    static AdmissionPolicy read(Fields root) {
        AdmissionPolicy d = AdmissionPolicy.defaults();
        Fields admission = root.section("admission", KEYS);
        if (admission == null) {
            return d;
        }
        boolean enabled = admission.bool("enabled", d.enabled());
        OverloadPolicy overload = overload(admission);
        double drainRate = admission.decimal("initial_drain_rate", d.initialDrainRate());
        if (!(drainRate > 0 && drainRate <= MAX_DRAIN_RATE)) {
            admission.problem("initial_drain_rate", drainRate + " is out of range (0, 1e9] tokens per second");
            drainRate = d.initialDrainRate();
        }
        return new AdmissionPolicy(
                enabled,
                overload,
                drainRate,
                admission.duration("max_retry_after", d.maxRetryAfter(), Duration.ofSeconds(1), Duration.ofHours(1)),
                admission.duration("tick", d.tick(), Duration.ofMillis(1), Duration.ofSeconds(1)));
    }

    private static OverloadPolicy overload(Fields admission) {
        OverloadPolicy d = OverloadPolicy.defaults();
        Fields overload = admission.section("overload", OVERLOAD_KEYS);
        if (overload == null) {
            return d;
        }
        Duration hour = Duration.ofHours(1);
        Duration enterAge = overload.duration("enter_queue_age", d.enterQueueAge(), Duration.ofMillis(1), hour);
        Duration exitAge = overload.duration("exit_queue_age", d.exitQueueAge(), Duration.ZERO, hour);
        long enterTokens = overload.integer("enter_pending_tokens", d.enterPendingTokens(), 1, 1_000_000_000_000L);
        long exitTokens = overload.integer("exit_pending_tokens", d.exitPendingTokens(), 0, 1_000_000_000_000L);
        Duration enterAfter = overload.duration("enter_after", d.enterAfter(), Duration.ZERO, hour);
        Duration exitAfter = overload.duration("exit_after", d.exitAfter(), Duration.ZERO, hour);
        if (exitAge.compareTo(enterAge) >= 0) {
            below(overload, "exit_queue_age", Durations.format(exitAge), "enter_queue_age", Durations.format(enterAge));
            enterAge = d.enterQueueAge();
            exitAge = d.exitQueueAge();
        }
        if (exitTokens >= enterTokens) {
            below(overload, "exit_pending_tokens", Long.toString(exitTokens), "enter_pending_tokens",
                    Long.toString(enterTokens));
            enterTokens = d.enterPendingTokens();
            exitTokens = d.exitPendingTokens();
        }
        return new OverloadPolicy(enterAge, exitAge, enterTokens, exitTokens, enterAfter, exitAfter);
    }

    /** Reports that {@code exitKey} is not below {@code enterKey}, on the key that was written (exit first). */
    private static void below(Fields overload, String exitKey, String exit, String enterKey, String enter) {
        String why = " (hysteresis: overload ends only well below where it starts)";
        if (overload.has(exitKey)) {
            String of = overload.has(enterKey) ? "" : ", the default";
            overload.problem(exitKey, exit + " must be below " + enterKey + " (" + enter + of + ")" + why);
        } else {
            overload.problem(enterKey, enter + " must be above " + exitKey + " (" + exit + ", the default);"
                    + " lower " + exitKey + " too" + why);
        }
    }
}
