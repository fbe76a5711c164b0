package io.cachegate.config;

import java.util.Collection;

/** "Did you mean" hints for unknown keys and names, by edit distance. */
final class Suggestions {

    private Suggestions() {
    }

    /** {@code " (did you mean port?)"} when a candidate is within two edits, else the empty string. */
    static String didYouMean(String word, Collection<String> candidates) {
        String best = null;
        int bestDistance = 3;
        for (String candidate : candidates) {
            int distance = distance(word, candidate);
            if (distance < bestDistance && distance < word.length()) {
                best = candidate;
                bestDistance = distance;
            }
        }
        return best == null ? "" : " (did you mean " + best + "?)";
    }

    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
