package io.cachegate.cache.semantic;

import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Rejects a pair whose identifiers differ: order and ticket ids, SKUs, hostnames, file names, e-mail addresses,
 * URLs. "status of order ZX-4471" and "… ZX-4471B" are one character apart in wording and close in vector space,
 * and they are different orders; the {@link NumberGuard} sees 4471 in both. An identifier is a
 * whitespace-separated token (surrounding punctuation trimmed), compared without case, that
 * <ul>
 *   <li>mixes letters and digits ({@code ZX-4471B}, {@code pipe-valid-2x}, {@code 2.3.1-rc}),</li>
 *   <li>is an e-mail address or a URL ({@code ops@acme.io}, {@code https://acme.io/a}), a snake_case name, or</li>
 *   <li>is dotted: three parts or more ({@code api.acme.io}), or two whose last is a common top-level domain or
 *       file extension ({@code acme.io}, {@code report.pdf}).</li>
 * </ul>
 * Not identifiers, because other guards or plain wording cover them: numbers, dates, times and fractions
 * ({@code 2.11}, {@code 12/21/17}; the number guard's), a number with a unit, ordinal or compound suffix
 * ({@code 10th}, {@code 7:30pm}, {@code 44-in}, {@code 54-year-old}) or a short prefix ({@code Rs.1000}), a
 * {@code v} before a version number, words joined by a slash or a hyphen
 * ({@code and/or}, {@code follow-up}), abbreviations ({@code e.g.}, {@code U.S.}) and a missing space after a
 * full stop ({@code account.what}).
 */
final class IdentifierGuard implements PairGuard {

    static final IdentifierGuard INSTANCE = new IdentifierGuard();

    /** What may surround an identifier in a sentence: quotes, brackets, sentence punctuation. */
    private static final Pattern EDGES = Pattern.compile("^[\\p{Punct}\\p{Pi}\\p{Pf}]+|[\\p{Punct}\\p{Pi}\\p{Pf}]+$");
    private static final Pattern NUMERIC = Pattern.compile("[\\p{N}.,/:+-]+");
    /** 10th, 11pm, 7:30am, 44-in, 54-year-old; Rs.1000, no.5, US$70. */
    private static final Pattern MEASURE = Pattern.compile("\\p{N}+(?:[.,:]\\p{N}+)?(?:-?\\p{L}{1,3}|(?:-\\p{L}+)+)"
            + "|\\p{L}{1,3}[.$\u20ac\u00a3\u00a5]\\p{N}+(?:[.,]\\p{N}+)*");
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
        return !identifiers(query).equals(identifiers(cached));
    }

    /** The identifiers of a text, lower-cased. */
    static Set<String> identifiers(String text) {
        Set<String> ids = new TreeSet<>();
        for (String raw : GuardText.fold(text).split("[\\s\\u00a0]+")) {
            String token = EDGES.matcher(raw).replaceAll("");
            token = VERSION.matcher(POSSESSIVE.matcher(token).replaceFirst("")).replaceFirst("");
            if (token.length() >= 2 && isIdentifier(token)) {
                ids.add(token.toLowerCase(Locale.ROOT));
            }
        }
        return ids;
    }

    private static boolean isIdentifier(String token) {
        if (NUMERIC.matcher(token).matches() || MEASURE.matcher(token).matches()) {
            return false;
        }
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
