package io.cachegate.cache.sensitive;

import static io.cachegate.cache.sensitive.Chars.alnum;
import static io.cachegate.cache.sensitive.Chars.letter;

/**
 * E-mail addresses, checked from their {@code @}: a local part before it and a domain of at least two labels
 * after it ending in a top-level domain of letters. Handles ({@code @alice}), scoped packages
 * ({@code @angular/core}) and retina file names ({@code icon@2x.png}) are not addresses.
 */
final class Emails {

    private static final int MAX_LOCAL = 64;
    private static final int MAX_DOMAIN = 253;

    private Emails() {
    }

    /** Where the address whose {@code @} is at {@code at} starts (its local part; call after {@link #end}). */
    static int start(CharSequence text, int at) {
        int i = at;
        while (i > 0 && at - i < MAX_LOCAL && localChar(text.charAt(i - 1))) {
            i--;
        }
        return i;
    }

    /** Where the address ends when the {@code @} at {@code at} joins a local part and a domain; else -1. */
    static int end(CharSequence text, int at) {
        int local = 0;
        for (int i = at - 1; i >= 0 && local < MAX_LOCAL && localChar(text.charAt(i)); i--) {
            local++;
        }
        if (local == 0 || text.charAt(at - 1) == '.') {
            return -1;
        }
        int n = Math.min(text.length(), at + 1 + MAX_DOMAIN);
        int i = at + 1;
        if (i + 2 < n && Chars.digit(text.charAt(i)) && text.charAt(i + 1) == 'x' && text.charAt(i + 2) == '.') {
            return -1; // icon@2x.png
        }
        int labels = 0;
        int labelLength = 0;
        boolean letters = true; // the label so far is all letters (a TLD must be)
        for (; i < n; i++) {
            char c = text.charAt(i);
            if (alnum(c) || c == '-' && labelLength > 0) {
                labelLength++;
                letters &= letter(c);
            } else if (c == '.' && labelLength > 0 && i + 1 < n && alnum(text.charAt(i + 1))) {
                labels++;
                labelLength = 0;
                letters = true;
            } else {
                break;
            }
        }
        return labels >= 1 && labelLength >= 2 && letters ? i : -1;
    }

    private static boolean localChar(char c) {
        return alnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-';
    }
}
