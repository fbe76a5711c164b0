package io.cachegate.cache.sensitive;

/**
 * Character classes the detectors share. ASCII, as the formats they look for are (text is folded first, so
 * Unicode digits, dashes and spaces are ASCII by then), except where an address may be written in any script.
 */
final class Chars {

    private Chars() {
    }

    static boolean digit(char c) {
        return c >= '0' && c <= '9';
    }

    static boolean upper(char c) {
        return c >= 'A' && c <= 'Z';
    }

    static boolean letter(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z';
    }

    static boolean alnum(char c) {
        return digit(c) || letter(c);
    }

    /**
     * A letter, digit or combining mark of another script (internationalised e-mail addresses); a surrogate
     * counts, so a letter outside the basic plane does too.
     */
    static boolean otherScript(char c) {
        if (c < 0x80) {
            return false;
        }
        if (Character.isLetterOrDigit(c) || Character.isSurrogate(c)) {
            return true;
        }
        int type = Character.getType(c);
        return type == Character.NON_SPACING_MARK || type == Character.COMBINING_SPACING_MARK;
    }

    /** Part of a word: a token never starts right after one. */
    static boolean word(char c) {
        return alnum(c) || c == '_';
    }

    /** Base64url, the alphabet of JWT segments and of most API-key bodies. */
    static boolean base64url(char c) {
        return alnum(c) || c == '_' || c == '-';
    }

    /** Past the rest of the word at {@code i} (itself when no word character is there). */
    static int wordEnd(CharSequence text, int i) {
        int n = text.length();
        while (i < n && word(text.charAt(i))) {
            i++;
        }
        return i;
    }

    /** Whether {@code i} ends a token: the end of the text or a character that cannot continue a word. */
    static boolean endsAt(CharSequence text, int i) {
        return i >= text.length() || !word(text.charAt(i));
    }

    /** The length of the run of {@code base64url} characters from {@code start}, at most {@code max}. */
    static int base64urlRun(CharSequence text, int start, int max) {
        int end = max >= text.length() - start ? text.length() : start + max;
        int i = start;
        while (i < end && base64url(text.charAt(i))) {
            i++;
        }
        return i - start;
    }

    static boolean startsWith(CharSequence text, int at, String prefix) {
        if (at + prefix.length() > text.length()) {
            return false;
        }
        for (int k = 0; k < prefix.length(); k++) {
            if (text.charAt(at + k) != prefix.charAt(k)) {
                return false;
            }
        }
        return true;
    }
}
