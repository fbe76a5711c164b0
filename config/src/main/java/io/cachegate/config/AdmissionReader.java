package io.cachegate.config;

import static io.cachegate.config.AdmissionKeys.ENABLED;
import static io.cachegate.config.AdmissionKeys.ENTER_AFTER;
import static io.cachegate.config.AdmissionKeys.ENTER_PENDING_TOKENS;
import static io.cachegate.config.AdmissionKeys.ENTER_QUEUE_AGE;
import static io.cachegate.config.AdmissionKeys.EXIT_AFTER;
import static io.cachegate.config.AdmissionKeys.EXIT_PENDING_TOKENS;
import static io.cachegate.config.AdmissionKeys.EXIT_QUEUE_AGE;
import static io.cachegate.config.AdmissionKeys.INITIAL_DRAIN_RATE;
import static io.cachegate.config.AdmissionKeys.MAX_RETRY_AFTER;
import static io.cachegate.config.AdmissionKeys.TICK;

import java.time.Duration;

/**
 * Reads the {@code admission} section (keys in {@link AdmissionKeys}). Overload exit thresholds must lie
 * below the enter thresholds; a violation is reported on the key the user wrote, so raising only an enter
 * threshold below a default exit threshold names the enter key and the default it collides with.
 */
final class AdmissionReader {

    private AdmissionReader() {
    }

    static AdmissionPolicy read(Fields root) {
        Fields admission = root.section(AdmissionKeys.SECTION);
        if (admission == null) {
            return AdmissionPolicy.defaults();
        }
        boolean enabled = admission.get(ENABLED);
        OverloadPolicy overload = overload(admission);
        return new AdmissionPolicy(
                enabled,
                overload,
                admission.get(INITIAL_DRAIN_RATE),
                admission.get(MAX_RETRY_AFTER),
                admission.get(TICK),
                admission.get(AdmissionKeys.FAIR_SHARE),
                admission.has(INITIAL_DRAIN_RATE.name()));
    }

    private static OverloadPolicy overload(Fields admission) {
        Fields overload = admission.section(AdmissionKeys.OVERLOAD);
        if (overload == null) {
            return OverloadPolicy.defaults();
        }
        Duration enterAge = overload.get(ENTER_QUEUE_AGE);
        Duration exitAge = overload.get(EXIT_QUEUE_AGE);
        long enterTokens = overload.get(ENTER_PENDING_TOKENS);
        long exitTokens = overload.get(EXIT_PENDING_TOKENS);
        Duration enterAfter = overload.get(ENTER_AFTER);
        Duration exitAfter = overload.get(EXIT_AFTER);
        if (exitAge.compareTo(enterAge) >= 0) {
            below(overload, EXIT_QUEUE_AGE, Durations.format(exitAge), ENTER_QUEUE_AGE, Durations.format(enterAge));
            enterAge = ENTER_QUEUE_AGE.fallback();
            exitAge = EXIT_QUEUE_AGE.fallback();
        }
        if (exitTokens >= enterTokens) {
            below(overload, EXIT_PENDING_TOKENS, Long.toString(exitTokens), ENTER_PENDING_TOKENS,
                    Long.toString(enterTokens));
            enterTokens = ENTER_PENDING_TOKENS.fallback();
            exitTokens = EXIT_PENDING_TOKENS.fallback();
        }
        return new OverloadPolicy(enterAge, exitAge, enterTokens, exitTokens, enterAfter, exitAfter);
    }

    /** Reports that {@code exit} is not below {@code enter}, on the key that was written (exit first). */
    private static void below(Fields overload, Key<?> exit, String exitValue, Key<?> enter, String enterValue) {
        String why = " (hysteresis: overload ends only well below where it starts)";
        if (overload.has(exit.name())) {
            String of = overload.has(enter.name()) ? "" : ", the default";
            overload.problem(exit.name(), exitValue + " must be below " + enter.name() + " (" + enterValue + of + ")"
                    + why);
        } else {
            overload.problem(enter.name(), enterValue + " must be above " + exit.name() + " (" + exitValue
                    + ", the default);" + " lower " + exit.name() + " too" + why);
        }
    }
}
