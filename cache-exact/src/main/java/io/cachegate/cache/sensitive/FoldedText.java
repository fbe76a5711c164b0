package io.cachegate.cache.sensitive;

import java.text.Normalizer;
import java.util.Arrays;

/**
 * The one text folding every detector and policy pattern reads: NFKC (fullwidth forms, {@code ＠}, ligatures,
 * superscripts), every Unicode decimal digit as its ASCII digit (Arabic-Indic, Devanagari, mathematical, ...),
 * every dash or hyphen (and the minus sign) as {@code -}, every space separator (NBSP, thin, ideographic, ...) as
 * a space, line and paragraph separators as a newline, and format characters (zero-width space and joiners, word
 * joiner, BOM, soft hyphen, bidi marks) removed. The detectors are ASCII, and RE2's {@code \d} is ASCII too, so
 * text folded once is what makes {@code ４１１１ １１１１…} or {@code 078–05–1120} look like what it is.
 *
 * <p>ASCII text is returned as it is, without a copy (the common case costs one read). Other text is folded in
 * stretches that end before an ASCII character: NFKC never joins across such a point, so the result is NFKC of
 * the whole text, and a stretch that is NFKC already (most non-Latin text) is mapped character by character. For
 * {@link SensitiveDataDetector#redact} the folded text remembers where each of its characters came from: exactly,
 * except inside a stretch NFKC changed, where a character is said to come from the whole stretch (a redaction
 * there covers the stretch: more than needed, never less).
 */
final class FoldedText {

    private final CharSequence text;
    /** For each folded character, where its source starts and ends in the original; null when they are the same. */
    private final int[] starts;
    private final int[] ends;

    private FoldedText(CharSequence text, int[] starts, int[] ends) {
        this.text = text;
        this.starts = starts;
        this.ends = ends;
    }

    /** The folding of {@code text}, what a scan reads. */
    static CharSequence fold(CharSequence text) {
        return ascii(text) ? text : new Builder(text, false).build().text;
    }

    /** The folding of {@code text} with where each character came from, for a redaction. */
    static FoldedText withOrigins(CharSequence text) {
        return ascii(text) ? new FoldedText(text, null, null) : new Builder(text, true).build();
    }

    CharSequence text() {
        return text;
    }

    /** Where the original of the folded stretch starting at {@code start} begins. */
    int originalStart(int start) {
        return starts == null ? start : starts[start];
    }

    /** Where the original of the folded stretch ending at {@code end} (exclusive, {@code > 0}) ends. */
    int originalEnd(int end) {
        return ends == null ? end : ends[end - 1];
    }

    /** ASCII, or a letter {@link Builder#plain(int, int)} keeps as it is. */
    static boolean plain(char c) {
        return c < 0x80 || c >= 0x4E00 && c <= 0x9FFF || c >= 0xAC00 && c <= 0xD7A3 || c >= 0x3041 && c <= 0x3096
                || c >= 0x30A1 && c <= 0x30FA || c >= 0x00C0 && c <= 0x00FF || c >= 0x0400 && c <= 0x045F;
    }

    private static boolean ascii(CharSequence text) {
        for (int i = 0, n = text.length(); i < n; i++) {
            if (text.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    /** One folding pass; the origins are kept only when asked for. */
    private static final class Builder {

        private final CharSequence source;
        private final StringBuilder out;
        private int[] starts;
        private int[] ends;

        Builder(CharSequence source, boolean origins) {
            this.source = source;
            this.out = new StringBuilder(source.length());
            if (origins) {
                starts = new int[Math.max(16, source.length())];
                ends = new int[starts.length];
            }
        }

        FoldedText build() {
            int n = source.length();
            int i = 0;
            while (i < n) {
                int ascii = i;
                while (ascii < n && source.charAt(ascii) < 0x80) {
                    ascii++;
                }
                // The last ASCII character before other text opens its stretch: it may take a combining mark.
                int stretch = ascii < n && ascii > i ? ascii - 1 : ascii;
                copy(i, stretch);
                if (stretch == n) {
                    break;
                }
                int end = stretch + 1;
                while (end < n && source.charAt(end) >= 0x80) {
                    end++;
                }
                stretch(stretch, end);
                i = end;
            }
            return new FoldedText(out, starts, ends);
        }

        /** {@code source[from, to)} as it is. */
        private void copy(int from, int to) {
            if (starts == null) {
                out.append(source, from, to);
            } else {
                for (int i = from; i < to; i++) {
                    append(source.charAt(i), i, i + 1);
                }
            }
        }

        private void stretch(int start, int end) {
            if (plain(start, end)) {
                copy(start, end);
                return;
            }
            CharSequence part = source.subSequence(start, end);
            if (Normalizer.isNormalized(part, Normalizer.Form.NFKC)) {
                for (int i = start; i < end; ) {
                    int cp = Character.codePointAt(source, i);
                    int next = i + Character.charCount(cp);
                    map(cp, i, next);
                    i = next;
                }
                return;
            }
            String normal = Normalizer.normalize(part, Normalizer.Form.NFKC);
            for (int k = 0; k < normal.length(); ) {
                int cp = normal.codePointAt(k);
                map(cp, start, end);
                k += Character.charCount(cp);
            }
        }

        /**
         * Whether the stretch holds only ASCII and letters of the commonest scripts that fold to themselves and never
         * compose with each other (Latin-1 letters, basic Cyrillic, kana, CJK ideographs, Hangul syllables): most
         * non-English text, kept without asking the normalizer. {@code FoldedTextTest} checks the ranges against
         * the JDK's Unicode data.
         */
        private boolean plain(int start, int end) {
            for (int i = start; i < end; i++) {
                if (!FoldedText.plain(source.charAt(i))) {
                    return false;
                }
            }
            return true;
        }

        /** One code point, folded, from {@code source[from, to)}. */
        private void map(int cp, int from, int to) {
            if (cp < 0x80) {
                append((char) cp, from, to);
                return;
            }
            switch (Character.getType(cp)) {
                case Character.FORMAT -> {
                    // zero-width space and joiners, word joiner, BOM, soft hyphen, bidi marks: invisible, dropped
                }
                case Character.DECIMAL_DIGIT_NUMBER -> append((char) ('0' + Character.digit(cp, 10)), from, to);
                case Character.DASH_PUNCTUATION -> append('-', from, to);
                case Character.SPACE_SEPARATOR -> append(' ', from, to);
                case Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR -> append('\n', from, to);
                default -> {
                    if (cp == '\u2212') {
                        append('-', from, to); // the minus sign, a math symbol, is written as a dash
                    } else if (Character.isBmpCodePoint(cp)) {
                        append((char) cp, from, to);
                    } else {
                        append(Character.highSurrogate(cp), from, to);
                        append(Character.lowSurrogate(cp), from, to);
                    }
                }
            }
        }

        private void append(char c, int from, int to) {
            if (starts != null) {
                int at = out.length();
                if (at == starts.length) {
                    starts = Arrays.copyOf(starts, at * 2);
                    ends = Arrays.copyOf(ends, at * 2);
                }
                starts[at] = from;
                ends[at] = to;
            }
            out.append(c);
        }
    }
}
