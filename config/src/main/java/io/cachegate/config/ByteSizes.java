package io.cachegate.config;

import java.util.Locale;

/**
 * Byte sizes as people write them: {@code 123} (bytes), {@code 10KB} (10,000), {@code 512KiB},
 * {@code 4MiB}, {@code 1GiB}. Units are case-insensitive and always mean bytes, never bits.
 */
public final class ByteSizes {

    private ByteSizes() {
    }

    /**
     * Parses a non-negative size in bytes.
     *
     * @throws IllegalArgumentException naming the text, when it is not a size or is negative
     */
    public static long parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("null is not a size (e.g. 512KiB, 4MiB)");
        }
        String s = text.strip();
        int i = 0;
        while (i < s.length() && (Character.isDigit(s.charAt(i)) || (i > 0 && s.charAt(i) == '_'))) {
            i++;
        }
        if (s.startsWith("-")) {
            throw new IllegalArgumentException(Durations.quote(text) + " is negative; sizes must be 0 or more");
        }
        if (i == 0 || s.charAt(i - 1) == '_') {
            throw invalid(text);
        }
        long multiplier = multiplier(s.substring(i).strip().toLowerCase(Locale.ROOT), text);
        try {
            return Math.multiplyExact(Long.parseLong(s.substring(0, i).replace("_", "")), multiplier);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException(Durations.quote(text) + " is too large a size", e);
        }
    }

    /** The shortest exact form {@link #parse} reads back: {@code 4MiB}, {@code 16KiB}, {@code 100}. */
    static String format(long bytes) {
        String[] units = {"TiB", "GiB", "MiB", "KiB"};
        for (int i = 0; i < units.length; i++) {
            int shift = 40 - 10 * i;
            if (bytes != 0 && bytes % (1L << shift) == 0) {
                return (bytes >> shift) + units[i];
            }
        }
        return Long.toString(bytes);
    }

    private static long multiplier(String unit, String text) {
        return switch (unit) {
            case "", "b" -> 1L;
            case "kb" -> 1_000L;
            case "mb" -> 1_000_000L;
            case "gb" -> 1_000_000_000L;
            case "tb" -> 1_000_000_000_000L;
            case "kib" -> 1L << 10;
            case "mib" -> 1L << 20;
            case "gib" -> 1L << 30;
            case "tib" -> 1L << 40;
            default -> throw invalid(text);
        };
    }

    private static IllegalArgumentException invalid(String text) {
        return new IllegalArgumentException(Durations.quote(text) + " is not a size (e.g. 512KiB, 4MiB, 10KB)");
    }
}
