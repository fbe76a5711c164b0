package io.cachegate.cache.semantic;

import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The list of known units that tells a quantity from an identifier when letters follow a number: {@code 5km},
 * {@code 10GB}, {@code 7pm} and {@code 21st} are quantities, {@code 5521GT} is an identifier. A single letter is
 * both a unit and an identifier suffix ({@code 3V} volts or bay 3V, {@code 5M} million or room 5M, {@code 221B}
 * billion or an address), so it is never a unit on its own: the identifier guard keeps the token and accepts only
 * the same quantity on the other side ({@link #letterOf} reads {@code 3 volts} as {@code 3v}).
 */
final class UnitSuffixes {

    /**
     * Suffixes of two letters or more that name a unit, an ordinal, a time of day or a currency; compared without
     * case ({@code 10GB}, {@code 10gb} and {@code 10Gb} are all sizes, none an identifier).
     */
    private static final Set<String> UNITS = Set.of(
            // length, area, mass, volume
            "mm", "cm", "dm", "km", "nm", "um", "\u00b5m", "\u03bcm", "in", "ft", "yd", "mi", "sqft", "sqm",
            "mg", "kg", "lb", "lbs", "oz", "ct", "ton", "tons",
            "ml", "cl", "dl", "cc", "gal", "pt", "qt", "tsp", "tbsp",
            // time, ordinals, times of day, age
            "ms", "us", "\u00b5s", "\u03bcs", "ns", "sec", "secs", "min", "mins", "hr", "hrs", "day", "days", "wk",
            "wks", "mo", "mos", "yr", "yrs", "yo", "am", "pm", "st", "nd", "rd", "th",
            // speed, rate, frequency, pressure
            "mph", "kph", "kmh", "kmph", "mpg", "fps", "rpm", "bpm", "hz", "khz", "mhz", "ghz", "thz", "psi", "bar",
            "kpa", "atm",
            // data
            "kb", "mb", "gb", "tb", "pb", "kib", "mib", "gib", "tib", "bit", "bits", "bps", "kbps", "mbps", "gbps",
            "gig", "gigs",
            // energy, power, electricity, sound, light
            "kw", "mw", "gw", "wh", "kwh", "mwh", "gwh", "hp", "kv", "mv", "mah", "ah", "ma", "kcal", "cal", "db",
            "lm",
            // display and type
            "px", "dpi", "ppi", "em", "rem",
            // magnitudes and money
            "bn", "mn", "mil", "mln", "cr", "usd", "eur", "gbp", "inr", "rs", "aud", "cad", "jpy", "cny", "rmb",
            "chf", "btc", "eth", "pcs");

    /** Unit words spelled out, as the single-letter symbol that may stand for them right after a number. */
    private static final Map<String, Character> SPELLED = Map.ofEntries(
            Map.entry("thousand", 'k'), Map.entry("million", 'm'), Map.entry("billion", 'b'),
            Map.entry("trillion", 't'), Map.entry("volt", 'v'), Map.entry("volts", 'v'), Map.entry("watt", 'w'),
            Map.entry("watts", 'w'), Map.entry("amp", 'a'), Map.entry("amps", 'a'), Map.entry("ampere", 'a'),
            Map.entry("amperes", 'a'), Map.entry("second", 's'), Map.entry("seconds", 's'), Map.entry("hour", 'h'),
            Map.entry("hours", 'h'), Map.entry("minute", 'm'), Map.entry("minutes", 'm'), Map.entry("metre", 'm'),
            Map.entry("metres", 'm'), Map.entry("meter", 'm'), Map.entry("meters", 'm'), Map.entry("gram", 'g'),
            Map.entry("grams", 'g'), Map.entry("litre", 'l'), Map.entry("litres", 'l'), Map.entry("liter", 'l'),
            Map.entry("liters", 'l'), Map.entry("byte", 'b'), Map.entry("bytes", 'b'), Map.entry("day", 'd'),
            Map.entry("days", 'd'), Map.entry("week", 'w'), Map.entry("weeks", 'w'), Map.entry("year", 'y'),
            Map.entry("years", 'y'), Map.entry("times", 'x'), Map.entry("kelvin", 'k'), Map.entry("pence", 'p'),
            Map.entry("joule", 'j'), Map.entry("joules", 'j'), Map.entry("newton", 'n'), Map.entry("newtons", 'n'));

    private UnitSuffixes() {
    }

    /** Whether letters written after a number make it a quantity; a single letter never does. */
    static boolean isUnit(String letters) {
        return letters.length() >= 2 && UNITS.contains(letters.toLowerCase(Locale.ROOT));
    }

    /**
     * The single-letter symbol that a word after a number may stand for, lower-cased: {@code 'v'} for
     * {@code volts}, {@code 'k'} for {@code thousand} and for {@code K}; 0 when it is no unit word.
     */
    static char letterOf(String word) {
        if (word.length() == 1 && Character.isLetter(word.charAt(0))) {
            return Character.toLowerCase(word.charAt(0));
        }
        Character letter = SPELLED.get(word.toLowerCase(Locale.ROOT));
        return letter == null ? 0 : letter;
    }
}
