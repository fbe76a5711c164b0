package io.cachegate.cache.exact;

import io.cachegate.config.Normalize;
import java.util.Locale;

/** The optional, per-route normalisation of user-authored text (see CANONICAL_FORM.md). */
final class TextNormalizer {

    private TextNormalizer() {
    }

    static String apply(String text, Normalize normalize) {
        if (normalize == Normalize.NONE) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        boolean pendingSpace = false;
        for (int i = 0; i < text.length(); ) {
            int cp = text.codePointAt(i);
            i += Character.charCount(cp);
            // isSpaceChar adds the no-break spaces that isWhitespace leaves out: both render as a gap.
            if (Character.isWhitespace(cp) || Character.isSpaceChar(cp)) {
                pendingSpace = out.length() > 0;
            } else {
                if (pendingSpace) {
                    out.append(' ');
                    pendingSpace = false;
                }
                out.appendCodePoint(cp);
            }
        }
        String collapsed = out.toString();
        return normalize == Normalize.CASE ? collapsed.toLowerCase(Locale.ROOT) : collapsed;
    }
}
