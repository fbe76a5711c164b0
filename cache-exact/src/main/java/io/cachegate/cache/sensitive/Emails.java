package io.cachegate.cache.sensitive;

import static io.cachegate.cache.sensitive.Chars.alnum;
import static io.cachegate.cache.sensitive.Chars.letter;

/**
 * E-mail addresses, checked from their {@code @}: a local part before it and a domain of at least two labels
 * after it ending in a top-level domain of letters. Internationalised addresses count: local parts and labels in
 * any script ({@code jürgen@müller.de}, {@code 用户@例子.中国}), punycode top-level domains ({@code .xn--p1ai}); a
 * fullwidth {@code ＠} is an {@code @} once folded. Handles ({@code @alice}), scoped packages
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
        int labelStart = i;
        boolean letters = true; // the label so far is all letters (a TLD must be, unless it is punycode)
        for (; i < n; i++) {
            char c = text.charAt(i);
            if (labelChar(c) || c == '-' && i > labelStart) {
                letters &= letter(c) || Chars.otherScript(c) && !Character.isDigit(c);
            } else if (c == '.' && i > labelStart && i + 1 < n && labelChar(text.charAt(i + 1))) {
                labels++;
                labelStart = i + 1;
                letters = true;
            } else {
                break;
            }
        }
        boolean tld = letters || i - labelStart > 4 && Chars.startsWith(text, labelStart, "xn--");
        return labels >= 1 && i - labelStart >= 2 && tld ? i : -1;
    }

    private static boolean labelChar(char c) {
        return alnum(c) || Chars.otherScript(c);
    }

    private static boolean localChar(char c) {
        return alnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-' || Chars.otherScript(c);
    }
}
