package io.cachegate.admission;

/**
 * BPE tokenizers of the GPT and Llama families average about four characters or three quarters of a
 * word per token in English. Each rule alone fails somewhere: characters under-count text of many
 * short words, words under-count code and identifiers without spaces. So the estimate is the larger
 * of {@code ceil(chars / 4)} and {@code ceil(words * 4 / 3)}, where words are runs of non-whitespace,
 * plus one token per Chinese, Japanese or Korean character (each usually a token or more), which are
 * left out of the other two counts. Counts code points, so surrogate pairs count once.
 */
final class HeuristicTokenEstimator implements TokenEstimator {

    @Override
    public long estimate(CharSequence text) {
        long chars = 0;
        long words = 0;
        long wide = 0;
        boolean inWord = false;
        for (int i = 0; i < text.length(); ) {
            int cp = Character.codePointAt(text, i);
            i += Character.charCount(cp);
            if (isWide(cp)) {
                wide++;
                inWord = false;
                continue;
            }
            chars++;
            if (Character.isWhitespace(cp)) {
                inWord = false;
            } else if (!inWord) {
                inWord = true;
                words++;
            }
        }
        long byChars = (chars + 3) / 4;
        long byWords = (words * 4 + 2) / 3;
        return wide + Math.max(byChars, byWords);
    }

    private static boolean isWide(int cp) {
        if (cp < 0x2E80) {
            return false;
        }
        Character.UnicodeScript script = Character.UnicodeScript.of(cp);
        return script == Character.UnicodeScript.HAN || script == Character.UnicodeScript.HIRAGANA
                || script == Character.UnicodeScript.KATAKANA || script == Character.UnicodeScript.HANGUL;
    }
}
