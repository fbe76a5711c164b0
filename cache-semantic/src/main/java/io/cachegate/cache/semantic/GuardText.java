package io.cachegate.cache.semantic;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The tokenisation the guards share: words with their original case, apostrophes folded to ASCII. */
final class GuardText {

    private static final Pattern WORD = Pattern.compile("[\\p{L}\\p{N}]+(?:['.,][\\p{L}\\p{N}]+)*");

    private GuardText() {
    }

    /** Words in order; "n't" stays attached ("don't"), decimals and thousands stay whole ("1,000.5"). */
    static List<String> words(String text) {
        Matcher m = WORD.matcher(fold(text));
        List<String> words = new ArrayList<>();
        while (m.find()) {
            words.add(m.group());
        }
        return words;
    }

    /** Typographic apostrophes as ASCII ones, so "don\u2019t" is "don't". */
    static String fold(String text) {
        return text.replace('\u2019', '\'').replace('\u2018', '\'');
    }

    static String lower(String word) {
        return word.toLowerCase(Locale.ROOT);
    }
}
