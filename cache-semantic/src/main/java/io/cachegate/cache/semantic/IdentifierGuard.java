package io.cachegate.cache.semantic;

import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Rejects a pair whose identifiers differ: order and ticket ids, SKUs, versions, hostnames, file names, e-mail
 * addresses, URLs. "status of order ZX-4471" and "… ZX-4471B" are one character apart in wording and close in
 * vector space, and they are different orders; the {@link NumberGuard} sees 4471 in both. An identifier is a
 * whitespace-separated token (surrounding punctuation trimmed) that mixes letters and digits ({@code ZX-4471B},
 * {@code v2.3.1}, {@code pipe-valid-2x}), or joins letters or digits with {@code @ / _ .} or {@code ://}
 * ({@code ops@acme.io}, {@code api.acme.io}, {@code report.pdf}, {@code user_id}); compared without case. Plain
 * words, hyphenated words ("follow-up") and abbreviations ("e.g.", "U.S.") are not identifiers.
 */
final class IdentifierGuard implements PairGuard {

    static final IdentifierGuard INSTANCE = new IdentifierGuard();

    /** What may surround an identifier in a sentence: quotes, brackets, sentence punctuation. */
    private static final Pattern EDGES = Pattern.compile("^[\\p{Punct}\\p{Pi}\\p{Pf}]+|[\\p{Punct}\\p{Pi}\\p{Pf}]+$");
    private static final Pattern JOINED = Pattern.compile("[\\p{L}\\p{N}](?:[@/_.]|://)[\\p{L}\\p{N}]");
    private static final Pattern ABBREVIATION = Pattern.compile("(?:\\p{L}\\.)+\\p{L}?");

    private IdentifierGuard() {
    }

    @Override
    public boolean rejects(String query, String cached) {
        return !identifiers(query).equals(identifiers(cached));
    }

    /** The identifiers of a text, lower-cased. */
    static Set<String> identifiers(String text) {
        Set<String> ids = new TreeSet<>();
        for (String raw : GuardText.fold(text).split("\\s+")) {
            String token = EDGES.matcher(raw).replaceAll("");
            if (token.length() >= 2 && isIdentifier(token)) {
                ids.add(token.toLowerCase(Locale.ROOT));
            }
        }
        return ids;
    }

    private static boolean isIdentifier(String token) {
        boolean letter = false;
        boolean digit = false;
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            letter |= Character.isLetter(c);
            digit |= Character.isDigit(c);
        }
        if (letter && digit) {
            return true;
        }
        return JOINED.matcher(token).find() && !ABBREVIATION.matcher(token).matches();
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
