package io.cachegate.cache.sensitive;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The one folding the detectors read: what becomes ASCII, what is dropped, what is kept, and where it came from. */
class FoldedTextTest {

    @ParameterizedTest(name = "{2}")
    @CsvSource(delimiter = '|', value = {
        "\uff14\uff11\uff11\uff11|4111|fullwidth digits (NFKC)",
        "\u0664\u0661\u0661\u0661|4111|Arabic-Indic digits",
        "\u096a\u0967\u0967\u0967|4111|Devanagari digits",
        "\ud835\udfd2\ud835\udfcf|41|mathematical bold digits, outside the basic plane",
        "a\u2010b\u2011c\u2012d\u2013e\u2014f\u2212g\uff0dh|a-b-c-d-e-f-g-h|hyphens, dashes and the minus sign",
        "a\u00a0b\u2009c\u202fd\u3000e\u2007f|a b c d e f|no-break, thin, narrow, ideographic and figure spaces",
        "a\u200bb\u200cc\u200dd\u2060e\ufefff\u00adg\u200eh|abcdefgh|zero-width characters, soft hyphen, bidi mark",
        "alice\uff20example\uff0ecom|alice@example.com|fullwidth at sign and full stop",
        "bob\ufe6bcorp|bob@corp|small commercial at",
        "\ufb01le \u2460 x\u00b2|file 1 x2|ligature, circled digit, superscript",
        "e\u0301t\u00e9|\u00e9t\u00e9|a combining accent joins its letter (NFKC composes)",
        "a\u2028b|'a\nb'|line separator",
        "\u6211\u7684\u5361|\u6211\u7684\u5361|text of other scripts kept as it is",
    })
    void fold_unicodeForms_becomeWhatTheDetectorsRead(String text, String folded, String what) {
        assertThat(FoldedText.fold(text).toString()).isEqualTo(folded);
        assertThat(FoldedText.withOrigins(text).text().toString()).as("the same, with origins").isEqualTo(folded);
    }

    @Test
    void fold_asciiText_isTheSameObject_noCopy() {
        String text = "Card 4111 1111 1111 1111, mail a@b.io";

        assertThat(FoldedText.fold(text)).isSameAs(text);
    }

    @Test
    void fold_loneSurrogatesAndBrokenPairs_areKeptAsTheyAre() {
        // A JSON string may hold lone surrogates ("\\ud800"); the folding neither fails on them nor drops them.
        String text = "a\ud800 \uff11\udc00b\ud83d";

        assertThat(FoldedText.fold(text).toString()).isEqualTo("a\ud800 1\udc00b\ud83d");
        assertThat(FoldedText.withOrigins(text).text().toString()).isEqualTo("a\ud800 1\udc00b\ud83d");
    }

    @Test
    void plain_everyCharacterKeptWithoutTheNormalizer_isOneNfkcKeepsAndNoneComposesWithIt() {
        // Characters that are the second of any canonical decomposition: those a character could compose with.
        java.util.BitSet seconds = new java.util.BitSet(0x10000);
        for (int c = 0; c < 0x10000; c++) {
            String nfd = java.text.Normalizer.normalize(String.valueOf((char) c), java.text.Normalizer.Form.NFD);
            for (int k = 1; k < nfd.length(); k++) {
                seconds.set(nfd.charAt(k));
            }
        }
        int plain = 0;
        for (int c = 0x80; c < 0x10000; c++) {
            if (!FoldedText.plain((char) c)) {
                continue;
            }
            plain++;
            String s = String.valueOf((char) c);
            assertThat(java.text.Normalizer.normalize(s, java.text.Normalizer.Form.NFKC)).as("U+%04X", c).isEqualTo(s);
            // Unassigned: the last few ideographs of the block, assigned by later Unicode versions.
            assertThat(Character.getType(c)).as("U+%04X: a letter, nothing the folding maps", c).isIn(
                    (int) Character.UPPERCASE_LETTER, (int) Character.LOWERCASE_LETTER, (int) Character.OTHER_LETTER,
                    (int) Character.MATH_SYMBOL, (int) Character.UNASSIGNED);
            assertThat(seconds.get(c)).as("U+%04X composes with what precedes it", c).isFalse();
            assertThat(c >= 0x1100 && c <= 0x11FF).as("no conjoining jamo").isFalse();
        }
        assertThat(plain).isGreaterThan(30_000);
    }

    @Test
    void fold_randomMixedText_isNfkcOfTheWholeText_thenMapped() {
        // Pieces that compose, reorder, decompose or map: folding by stretches must equal NFKC of the whole text.
        String[] pieces = {"a", "e", "5", " ", "-", ".", "@", "\u0301", "\u0308", "\u0323", "\uff14", "\u00a0",
            "\u200b", "\u2013", "\u0928", "\u093c", "\u0958", "\u0966", "\uac00", "\u11a8", "\u1100", "\u1161",
            "\u304b", "\u3099", "\ufb01", "\u2460", "\u4e2d", "\u0439", "\u00e9", "\ud835\udfd2", "\uff20",
            "\u3000", "\u00ad", "\u2212"};
        java.util.SplittableRandom random = new java.util.SplittableRandom(28);
        for (int round = 0; round < 20_000; round++) {
            StringBuilder text = new StringBuilder();
            for (int k = random.nextInt(12); k >= 0; k--) {
                text.append(pieces[random.nextInt(pieces.length)]);
            }
            String expected = reference(text.toString());
            assertThat(FoldedText.fold(text).toString()).as("%s", text.codePoints().mapToObj(Integer::toHexString)
                    .toList()).isEqualTo(expected);
            assertThat(FoldedText.withOrigins(text).text().toString()).isEqualTo(expected);
        }
    }

    /** The folding as specified, written plainly: NFKC of the whole text, then each code point mapped. */
    private static String reference(String text) {
        StringBuilder out = new StringBuilder();
        java.text.Normalizer.normalize(text, java.text.Normalizer.Form.NFKC).codePoints().forEach(cp -> {
            int type = Character.getType(cp);
            if (type == Character.FORMAT) {
                return;
            }
            if (type == Character.DECIMAL_DIGIT_NUMBER) {
                out.append(Character.digit(cp, 10));
            } else if (type == Character.DASH_PUNCTUATION || cp == 0x2212) {
                out.append('-');
            } else if (type == Character.SPACE_SEPARATOR) {
                out.append(' ');
            } else if (type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR) {
                out.append('\n');
            } else {
                out.appendCodePoint(cp);
            }
        });
        return out.toString();
    }

    @Test
    void withOrigins_mapsEachFoldedCharacterBackToItsSource() {
        String text = "ab\u200bc\u00a0d";  // "ab" ZWSP "c" NBSP "d" -> "abc d"
        FoldedText folded = FoldedText.withOrigins(text);

        assertThat(folded.text().toString()).isEqualTo("abc d");
        assertThat(folded.originalStart(2)).as("c, after the dropped ZWSP").isEqualTo(3);
        assertThat(folded.originalEnd(5)).isEqualTo(text.length());
        assertThat(folded.originalStart(3)).as("NFKC changed the stretch 'c' NBSP: its space covers it").isEqualTo(3);
        assertThat(folded.originalEnd(4)).isEqualTo(5);
    }

    @Test
    void withOrigins_insideAStretchNfkcChanged_coversTheStretch() {
        String text = "x \uff14\uff11 y"; // " ４１" is one stretch NFKC changes (after the ASCII 'x')
        FoldedText folded = FoldedText.withOrigins(text);

        assertThat(folded.text().toString()).isEqualTo("x 41 y");
        assertThat(folded.originalStart(2)).isEqualTo(1);
        assertThat(folded.originalEnd(4)).isEqualTo(4);
    }
}
