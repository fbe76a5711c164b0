package io.cachegate.cache.semantic;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What {@link LearnedDecision} knows about a (query, cached text) pair besides its cosine: how much of the
 * content words and character trigrams the two share, which words only one side has, and the guards'
 * verdicts as 0/1. The embedding says "same topic"; these say "same question". Every feature is a bounded
 * number, so a fitted weight means the same whatever the texts' lengths. A pure function of its inputs.
 */
public final class PairFeatures {

    /** The feature names, in the order of {@link #compute}; parameter files name their weights with these. */
    public static final List<String> NAMES = List.of(
            "cosine",
            "cosine_squared",
            "word_jaccard",
            "query_unmatched",
            "cached_unmatched",
            "rare_unmatched",
            "trigram_jaccard",
            "length_ratio",
            "numbers_differ",
            "negation_differs",
            "entities_differ",
            "question_word_differs");

    /** How many features {@link #compute} writes. */
    public static final int COUNT = NAMES.size();

    /** Unmatched words this long or longer stand in for rare words (no vocabulary statistics ship with us). */
    private static final int RARE_LENGTH = 6;
    private static final int RARE_CAP = 3;

    private static final Set<String> QUESTION_WORDS = Set.of("what", "why", "how", "when", "where", "who", "whom",
            "whose", "which");

    private static final Set<String> STOP_WORDS = Set.of("a", "an", "the", "and", "or", "but", "if", "of", "to", "in",
            "on", "at", "by", "for", "with", "from", "into", "about", "as", "is", "are", "was", "were", "be", "been",
            "being", "am", "do", "does", "did", "doing", "have", "has", "had", "can", "could", "would", "should",
            "will", "shall", "may", "might", "must", "i", "me", "my", "mine", "myself", "you", "your", "yours", "we",
            "our", "us", "he", "him", "his", "she", "her", "it", "its", "they", "them", "their", "this", "that",
            "these", "those", "there", "here", "so", "some", "any", "just", "also", "very", "really", "please",
            "get", "got", "s", "what", "why", "how", "when", "where", "who", "whom", "whose", "which", "than", "then",
            "too", "up", "out", "one", "way", "ways", "best", "good", "thing", "things", "anyone", "someone", "i'm",
            "it's", "there's", "what's", "can't", "cannot");

    private PairFeatures() {
    }

    /**
     * Writes the features of the pair into {@code out} (length {@link #COUNT}), in the order of {@link #NAMES}.
     *
     * @param cosine the pair's cosine similarity
     */
    public static void compute(String query, String cached, float cosine, double[] out) {
        if (out.length != COUNT) {
            throw new IllegalArgumentException("out must have " + COUNT + " slots, had " + out.length);
        }
        Text q = Text.of(query);
        Text c = Text.of(cached);
        int common = 0;
        int rare = 0;
        for (String word : q.content) {
            if (c.content.contains(word)) {
                common++;
            } else if (word.length() >= RARE_LENGTH) {
                rare++;
            }
        }
        for (String word : c.content) {
            if (!q.content.contains(word) && word.length() >= RARE_LENGTH) {
                rare++;
            }
        }
        int union = q.content.size() + c.content.size() - common;
        out[0] = cosine;
        out[1] = (double) cosine * cosine;
        out[2] = union == 0 ? 1.0 : (double) common / union;
        out[3] = q.content.isEmpty() ? 0.0 : 1.0 - (double) common / q.content.size();
        out[4] = c.content.isEmpty() ? 0.0 : 1.0 - (double) common / c.content.size();
        out[5] = Math.min(rare, RARE_CAP) / (double) RARE_CAP;
        out[6] = jaccard(q.trigrams, c.trigrams);
        out[7] = Math.min(q.words, c.words) / (double) Math.max(1, Math.max(q.words, c.words));
        out[8] = q.numbers.equals(c.numbers) ? 0 : 1;
        out[9] = NegationGuard.INSTANCE.rejects(query, cached) ? 1 : 0;
        out[10] = EntityGuard.INSTANCE.rejects(query, cached) ? 1 : 0;
        out[11] = q.questionWords.equals(c.questionWords) ? 0 : 1;
    }

    /** {@link #compute} into a new array: for tests and the fitter. */
    public static double[] of(String query, String cached, float cosine) {
        double[] out = new double[COUNT];
        compute(query, cached, cosine, out);
        return out;
    }

    private static double jaccard(Set<String> a, Set<String> b) {
        if (a.isEmpty() && b.isEmpty()) {
            return 1.0;
        }
        int common = 0;
        for (String s : a) {
            if (b.contains(s)) {
                common++;
            }
        }
        return (double) common / (a.size() + b.size() - common);
    }

    /** One side of the pair, tokenised once. */
    private static final class Text {

        final Set<String> content = new HashSet<>();
        final Set<String> trigrams = new HashSet<>();
        final Set<String> questionWords = new HashSet<>(4);
        final Set<String> numbers;
        final int words;

        private Text(String text) {
            List<String> tokens = GuardText.words(text);
            words = tokens.size();
            StringBuilder joined = new StringBuilder(text.length() + 2).append(' ');
            for (String token : tokens) {
                String lower = GuardText.lower(token);
                joined.append(lower).append(' ');
                if (QUESTION_WORDS.contains(lower)) {
                    questionWords.add(lower);
                }
                if (!STOP_WORDS.contains(lower)) {
                    content.add(stem(lower));
                }
            }
            for (int i = 0; i + 3 <= joined.length(); i++) {
                trigrams.add(joined.substring(i, i + 3));
            }
            numbers = NumberGuard.numbers(text);
        }

        static Text of(String text) {
            return new Text(text);
        }

        /** A crude plural and possessive fold, so "plans" matches "plan" and "user's" matches "user". */
        private static String stem(String word) {
            if (word.endsWith("'s")) {
                return word.substring(0, word.length() - 2);
            }
            if (word.length() > 3 && word.endsWith("s") && !word.endsWith("ss")) {
                return word.substring(0, word.length() - 1);
            }
            return word;
        }
    }
}
