package io.cachegate.cache.semantic;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Rejects a pair when a named entity of one text is missing from the other: "visa to Canada" against
 * "visa to Australia". An entity is a capitalised word that does not start a sentence (the first word of
 * each sentence is capitalised anyway) and is not "I"; it is looked up case-insensitively among all words
 * of the other text, so "learn Python" still matches "learn python".
 */
final class EntityGuard implements PairGuard {

    static final EntityGuard INSTANCE = new EntityGuard();

    private EntityGuard() {
    }

    @Override
    public boolean rejects(String query, String cached) {
        return !covered(query, cached) || !covered(cached, query);
    }

    /** Whether every entity of {@code from} occurs, in any case, among the words of {@code in}. */
    private static boolean covered(String from, String in) {
        Set<String> entities = entities(from);
        if (entities.isEmpty()) {
            return true;
        }
        Set<String> words = new HashSet<>();
        for (String word : GuardText.words(in)) {
            words.add(GuardText.lower(word));
        }
        return words.containsAll(entities);
    }

    /** The entities of a text, lowercased. */
    static Set<String> entities(String original) {
        String text = GuardText.fold(original);
        Set<String> entities = new HashSet<>();
        List<String> words = GuardText.words(text);
        int searchFrom = 0;
        boolean sentenceStart = true;
        for (String word : words) {
            int at = text.indexOf(word, searchFrom);
            if (at >= 0) {
                // A sentence starts at the text's start and after '.', '?' or '!' (the gap before this word).
                String gap = text.substring(searchFrom, at);
                if (gap.indexOf('.') >= 0 || gap.indexOf('?') >= 0 || gap.indexOf('!') >= 0) {
                    sentenceStart = true;
                }
                searchFrom = at + word.length();
            }
            if (!sentenceStart && Character.isUpperCase(word.codePointAt(0)) && !isPronounI(word)) {
                entities.add(GuardText.lower(word));
            }
            sentenceStart = false;
        }
        return entities;
    }

    private static boolean isPronounI(String word) {
        return word.equals("I") || word.startsWith("I'");
    }

    @Override
    public String name() {
        return "entities";
    }

    @Override
    public String toString() {
        return name();
    }
}
