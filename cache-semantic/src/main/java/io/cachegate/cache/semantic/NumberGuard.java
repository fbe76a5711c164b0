package io.cachegate.cache.semantic;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Rejects a pair whose numbers differ: "2 weeks" against "3 weeks", "iPhone 6" against "iPhone 7". Number
 * words up to twenty count as their digits, so "two weeks" matches "2 weeks"; thousands separators are ignored.
 */
final class NumberGuard implements PairGuard {

    static final NumberGuard INSTANCE = new NumberGuard();

    private static final Map<String, String> WORDS = Map.ofEntries(
            Map.entry("zero", "0"), Map.entry("one", "1"), Map.entry("two", "2"), Map.entry("three", "3"),
            Map.entry("four", "4"), Map.entry("five", "5"), Map.entry("six", "6"), Map.entry("seven", "7"),
            Map.entry("eight", "8"), Map.entry("nine", "9"), Map.entry("ten", "10"), Map.entry("eleven", "11"),
            Map.entry("twelve", "12"), Map.entry("thirteen", "13"), Map.entry("fourteen", "14"),
            Map.entry("fifteen", "15"), Map.entry("sixteen", "16"), Map.entry("seventeen", "17"),
            Map.entry("eighteen", "18"), Map.entry("nineteen", "19"), Map.entry("twenty", "20"));

    private NumberGuard() {
    }

    @Override
    public boolean rejects(String query, String cached) {
        return !numbers(query).equals(numbers(cached));
    }

    /** The digits of a number word up to twenty ({@code "two"} gives {@code "2"}), or null; lower-case input. */
    static String wordValue(String lowerCaseWord) {
        return WORDS.get(lowerCaseWord);
    }

    /** The numbers of a text, normalised: digits runs without separators, number words as digits. */
    static Set<String> numbers(String text) {
        Set<String> numbers = new TreeSet<>();
        for (String word : GuardText.words(text)) {
            String lower = GuardText.lower(word);
            String asWord = wordValue(lower);
            if (asWord != null) {
                numbers.add(asWord);
                continue;
            }
            // Every digit run inside the word: "6s" gives 6, "mp3" gives 3, "1,000" gives 1000, "1.5" gives 1 and 5.
            StringBuilder digits = new StringBuilder();
            for (int i = 0; i <= lower.length(); i++) {
                char c = i < lower.length() ? lower.charAt(i) : ' ';
                if (Character.isDigit(c)) {
                    digits.append(c);
                } else if (c == ',' && digits.length() > 0) {
                    continue;
                } else if (digits.length() > 0) {
                    numbers.add(digits.toString().replaceFirst("^0+(?=\\d)", ""));
                    digits.setLength(0);
                }
            }
        }
        return numbers;
    }

    @Override
    public String name() {
        return "numbers";
    }

    @Override
    public String toString() {
        return name();
    }
}
