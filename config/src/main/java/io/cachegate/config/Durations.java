package io.cachegate.config;

import java.time.Duration;
import java.util.Locale;

/**
 * Durations as people write them in config: {@code 250ms}, {@code 2s}, {@code 10m}, {@code 1h},
 * {@code 1d}, or combined like {@code 1h30m}. A bare number is rejected because its unit would be a guess.
 */
public final class Durations {

    static final String EXAMPLES = "(e.g. 500ms, 10m, 1h)";

    private Durations() {
    }

    /**
     * Parses a duration; units are {@code ns us ms s m h d}.
     *
     * @throws IllegalArgumentException naming the text, when it is not a non-negative duration
     */
    public static Duration parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("null is not a duration " + EXAMPLES);
        }
        String s = text.strip().toLowerCase(Locale.ROOT);
        if (s.isEmpty()) {
            throw invalid(text);
        }
        Duration total = Duration.ZERO;
        int i = 0;
        try {
            while (i < s.length()) {
                int start = i;
                while (i < s.length() && Character.isDigit(s.charAt(i))) {
                    i++;
                }
                int unitStart = i;
                while (i < s.length() && Character.isLetter(s.charAt(i))) {
                    i++;
                }
                if (unitStart == start || unitStart == i) {
                    throw invalid(text);
                }
                long amount = Long.parseLong(s.substring(start, unitStart));
                total = total.plus(of(amount, s.substring(unitStart, i), text));
            }
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException(quote(text) + " is too large a duration", e);
        }
        return total;
    }

    /** The shortest form {@link #parse} reads back, e.g. {@code 1h30m}, {@code 250ms}, {@code 0s}. */
    public static String format(Duration d) {
        if (d.isZero()) {
            return "0s";
        }
        if (d.isNegative()) {
            return "-" + format(d.negated());
        }
        StringBuilder out = new StringBuilder();
        append(out, d.toDays(), "d");
        append(out, d.toHoursPart(), "h");
        append(out, d.toMinutesPart(), "m");
        append(out, d.toSecondsPart(), "s");
        int nanos = d.toNanosPart();
        append(out, nanos / 1_000_000, "ms");
        append(out, nanos / 1_000 % 1_000, "us");
        append(out, nanos % 1_000, "ns");
        return out.toString();
    }

    private static Duration of(long amount, String unit, String text) {
        return switch (unit) {
            case "ns" -> Duration.ofNanos(amount);
            case "us" -> Duration.ofNanos(Math.multiplyExact(amount, 1_000L));
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            case "d" -> Duration.ofDays(amount);
            default -> throw invalid(text);
        };
    }

    private static void append(StringBuilder out, long amount, String unit) {
        if (amount != 0) {
            out.append(amount).append(unit);
        }
    }

    private static IllegalArgumentException invalid(String text) {
        return new IllegalArgumentException(quote(text) + " is not a duration " + EXAMPLES);
    }

    static String quote(String text) {
        return '"' + text + '"';
    }
}
