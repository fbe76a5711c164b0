package io.cachegate.cache.semantic;

import java.util.Set;

/**
 * Rejects a pair where one text is negated and the other is not: "why is my card not working" against
 * "why is my card working". Counts presence, not the number of cues, so a paraphrase that negates
 * twice where the other negates once still matches.
 */
final class NegationGuard implements PairGuard {

    static final NegationGuard INSTANCE = new NegationGuard();

    private static final Set<String> CUES = Set.of("not", "no", "never", "none", "nothing", "nobody", "nowhere",
            "neither", "nor", "without", "cannot", "cant", "dont", "doesnt", "didnt", "isnt", "arent", "wasnt",
            "werent", "wont", "wouldnt", "shouldnt", "couldnt", "hasnt", "havent", "hadnt");

    private NegationGuard() {
    }

    @Override
    public boolean rejects(String query, String cached) {
        return negated(query) != negated(cached);
    }

    static boolean negated(String text) {
        for (String word : GuardText.words(text)) {
            String lower = GuardText.lower(word);
            if (lower.endsWith("n't") || CUES.contains(lower)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String name() {
        return "negation";
    }

    @Override
    public String toString() {
        return name();
    }
}
