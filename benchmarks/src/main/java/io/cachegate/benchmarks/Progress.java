package io.cachegate.benchmarks;

import java.util.Locale;

/**
 * What a scenario tells the person watching it, on stderr (stdout carries only the report): lines
 * prefixed with the scenario's name, and a {@code == label} line as each measured phase starts.
 */
final class Progress {

    private final String prefix;

    /** Lines start with {@code who: }, e.g. {@code overload: }. */
    Progress(String who) {
        this.prefix = who + ": ";
    }

    void info(String format, Object... args) {
        System.err.println(prefix + String.format(Locale.ROOT, format, args));
    }

    /** Announces the phase about to run. */
    void phase(String label) {
        System.err.println("== " + label);
    }
}
