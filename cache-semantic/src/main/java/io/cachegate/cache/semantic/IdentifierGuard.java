package io.cachegate.cache.semantic;

import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rejects a pair whose identifiers differ: order and ticket ids, SKUs, addresses, rooms, hostnames, file names,
 * e-mail addresses, URLs. "status of order ZX-4471" and "… ZX-4471B" are one character apart in wording and close in
 * vector space, and they are different orders; the {@link NumberGuard} sees 4471 in both. An identifier is a
 * whitespace-separated token (surrounding punctuation trimmed), compared without case, that
 * <ul>
 *   <li>mixes letters and digits ({@code ZX-4471B}, {@code pipe-valid-2x}, {@code 2.3.1-rc}), unless the letters
 *       after a number name a known unit ({@code 5km}, {@code 10GB}, {@code 7:30pm}, {@code 21st}:
 *       {@link UnitSuffixes});</li>
 *   <li>is an e-mail address or a URL ({@code ops@acme.io}, {@code https://acme.io/a}), a snake_case name, or</li>
 *   <li>is dotted: three parts or more ({@code api.acme.io}), or two whose last is a common top-level domain or
 *       file extension ({@code acme.io}, {@code report.pdf}).</li>
 * </ul>
 * A number with one letter ({@code 221B}, {@code 3V}, {@code 5k}, {@code 12-A}) is an identifier whether or not
 * the letter is also a unit's symbol, but the other text may state it as the same quantity instead:
 * {@code 3 V}, {@code 3 volts}, {@code 5 thousand}, {@code 80's}. So bay 3V never answers bay 3W, nor room 101M
 * room 101K, while a 9V battery is a 9 volt battery.
 * Not identifiers, because other guards or plain wording cover them: numbers, dates, times and fractions
 * ({@code 2.11}, {@code 12/21/17}; the number guard's), compounds ({@code 54-year-old}, {@code 2-way}), degrees
 * ({@code 30°C}), a short prefix ({@code Rs.1000}), a {@code v} before a version number, words joined by a slash or
 * a hyphen ({@code and/or}, {@code follow-up}), abbreviations ({@code e.g.}, {@code U.S.}) and a missing space after
 * a full stop ({@code account.what}).
 */
final class IdentifierGuard implements PairGuard {

    static final IdentifierGuard INSTANCE = new IdentifierGuard();

    /** What may surround an identifier in a sentence: quotes, brackets, sentence punctuation. */
    private static final Pattern EDGES = Pattern.compile("^[\\p{Punct}\\p{Pi}\\p{Pf}]+|[\\p{Punct}\\p{Pi}\\p{Pf}]+$");
    private static final Pattern NUMERIC = Pattern.compile("[\\p{N}.,/:+-]+");
    /** A number as a quantity's amount: 5, 1.5, 1,000. */
    private static final Pattern AMOUNT = Pattern.compile("\\p{N}+(?:[.,]\\p{N}+)*");
    /** A number, then letters: 5km, 7:30pm, 221B, 12-A, 5521GT, 44-in, 10km/h (2.3.1-rc is a version). */
    private static final Pattern SUFFIXED = Pattern.compile(
            "(\\p{N}+(?:[.,:]\\p{N}+)?)(-?)(\\p{L}{1,5})(?:/(\\p{L}{1,5}))?");
    /** 54-year-old, 3-day-old; Rs.1000, no.5, US$70; 30°C. */
    private static final Pattern WORDING = Pattern.compile("\\p{N}+(?:[.,:]\\p{N}+)?(?:-\\p{L}+)+"
            + "|\\p{L}{1,3}[.$\u20ac\u00a3\u00a5]\\p{N}+(?:[.,]\\p{N}+)*|\\p{N}+(?:[.,]\\p{N}+)*\u00b0[CFK]?");
    private static final Pattern POSSESSIVE = Pattern.compile("'s$");
    private static final Pattern VERSION = Pattern.compile("^[vV](?=\\p{N})");
    private static final Pattern EMAIL_OR_URL = Pattern.compile("[\\p{L}\\p{N}]@[\\p{L}\\p{N}]|\\p{L}://\\S");
    private static final Pattern SNAKE = Pattern.compile("[\\p{L}\\p{N}]_[\\p{L}\\p{N}]");
    private static final Pattern DOTTED = Pattern.compile(
            "[\\p{L}\\p{N}](?:[\\p{L}\\p{N}-]*[\\p{L}\\p{N}])?(?:\\.[\\p{L}\\p{N}](?:[\\p{L}\\p{N}-]*[\\p{L}\\p{N}])?)+");
    private static final Pattern ABBREVIATION = Pattern.compile("(?:\\p{L}\\.)+\\p{L}?");
    /** Endings that make a two-part dotted token a domain or a file name rather than two words run together. */
    private static final Set<String> ENDINGS = Set.of("com", "org", "net", "io", "ai", "dev", "app", "co", "uk",
            "de", "fr", "eu", "gov", "edu", "info", "cloud", "local", "internal", "json", "yaml", "yml", "xml",
            "csv", "tsv", "pdf", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "txt", "md", "log", "js", "ts", "py",
            "java", "go", "rs", "rb", "php", "html", "css", "sh", "zip", "tar", "gz", "png", "jpg", "jpeg", "gif",
            "svg", "mp3", "mp4", "exe", "dll", "so", "jar", "sql", "db", "conf", "cfg", "ini", "env", "lock");

    private IdentifierGuard() {
    }

    @Override
    public boolean rejects(String query, String cached) {
        Facts q = facts(query);
        Facts c = facts(cached);
        return !c.mentions().containsAll(q.identifiers()) || !q.mentions().containsAll(c.identifiers());
    }

    /** The identifiers of a text, lower-cased; a number with one letter as the number and the letter ("221b"). */
    static Set<String> identifiers(String text) {
        return facts(text).identifiers();
    }

    /**
     * A text's identifiers, and what may stand for one of them in the other text: the identifiers themselves and
     * each number followed by a unit word or a lone letter, written like a lettered identifier ({@code 3 volts}
     * as {@code 3v}, {@code five thousand} as {@code 5k}, {@code 80's} as {@code 80s}).
     */
    private record Facts(Set<String> identifiers, Set<String> mentions) {
    }

    private static Facts facts(String text) {
        Set<String> ids = new TreeSet<>();
        Set<String> mentions = new TreeSet<>();
        String amount = null; // the number just before this token, for "3 volts"
        for (String raw : GuardText.fold(text).split("[\\s\\u00a0]+")) {
            String token = EDGES.matcher(raw).replaceAll("");
            String bare = POSSESSIVE.matcher(token).replaceFirst("");
            char unit = amount == null ? 0 : UnitSuffixes.letterOf(token);
            if (unit != 0) {
                mentions.add(amount + unit);
            }
            if (bare.length() < token.length() && AMOUNT.matcher(bare).matches()) {
                mentions.add(bare + 's');
            }
            token = VERSION.matcher(bare).replaceFirst("");
            amount = amount(token);
            String id = token.length() >= 2 ? identifier(token) : null;
            if (id != null) {
                ids.add(id);
            }
        }
        mentions.addAll(ids);
        return new Facts(ids, mentions);
    }

    /** The token as a quantity's amount: digits, or a number word up to twenty as digits; else null. */
    private static String amount(String token) {
        return AMOUNT.matcher(token).matches() ? token : NumberGuard.wordValue(GuardText.lower(token));
    }

    /** The token as an identifier, lower-cased, or null when it is a number, a quantity or wording. */
    private static String identifier(String token) {
        if (NUMERIC.matcher(token).matches()) {
            return null;
        }
        Matcher suffixed = SUFFIXED.matcher(token);
        if (suffixed.matches()) {
            String letters = suffixed.group(3);
            String per = suffixed.group(4);
            if (per != null) { // 10km/h, 9.8m/s
                return unitOrSymbol(letters) && unitOrSymbol(per) ? null : GuardText.lower(token);
            }
            if (letters.length() == 1) {
                return suffixed.group(1) + GuardText.lower(letters);
            }
            // 2-way and 5-star are compounds, 5km a quantity; 5521GT an identifier.
            boolean wording = !suffixed.group(2).isEmpty() || UnitSuffixes.isUnit(letters);
            return wording ? null : GuardText.lower(token);
        }
        return !WORDING.matcher(token).matches() && isIdentifier(token) ? GuardText.lower(token) : null;
    }

    private static boolean unitOrSymbol(String letters) {
        return letters.length() == 1 || UnitSuffixes.isUnit(letters);
    }

    private static boolean isIdentifier(String token) {
        if (EMAIL_OR_URL.matcher(token).find() || SNAKE.matcher(token).find()) {
            return true;
        }
        boolean letter = false;
        boolean digit = false;
        for (int i = 0; i < token.length(); i++) {
            letter |= Character.isLetter(token.charAt(i));
            digit |= Character.isDigit(token.charAt(i));
        }
        if (letter && digit) {
            return true;
        }
        if (!DOTTED.matcher(token).matches() || ABBREVIATION.matcher(token).matches()) {
            return false;
        }
        String[] parts = token.split("\\.");
        return parts.length >= 3 || ENDINGS.contains(parts[1].toLowerCase(Locale.ROOT));
    }

    @Override
    public String name() {
        return "identifiers";
    }

    @Override
    public String toString() {
        return name();
    }
}
