package io.cachegate.benchmarks;

import java.util.Locale;

/** A text report being written: formatted lines, numbers the same in every locale. */
final class ReportText {

    private final StringBuilder out = new StringBuilder(4096);

    /** Appends {@code format} with {@code args} and a line separator. */
    ReportText line(String format, Object... args) {
        out.append(String.format(Locale.ROOT, format, args)).append(System.lineSeparator());
        return this;
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
