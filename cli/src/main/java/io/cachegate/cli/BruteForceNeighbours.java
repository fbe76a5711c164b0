package io.cachegate.cli;

import io.cachegate.cache.semantic.Neighbour;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Exact nearest neighbours over unit vectors, for {@code eval-semantic} and {@code fit-decision}: a few
 * thousand entries, so a scan is exact and fast enough, and no index's approximation blurs the figures.
 * A neighbour's entry key is its row number.
 */
final class BruteForceNeighbours {

    private BruteForceNeighbours() {
    }

    /**
     * The k rows most similar to the query, best first.
     *
     * @param skip a row to leave out (the query's own row when searching a set for its own members), or -1
     */
    static List<Neighbour> nearest(float[] query, float[][] vectors, List<String> texts, int k, int skip) {
        int size = Math.min(k, vectors.length);
        int[] best = new int[size];
        float[] scores = new float[size];
        Arrays.fill(scores, Float.NEGATIVE_INFINITY);
        int found = 0;
        for (int j = 0; j < vectors.length; j++) {
            if (j == skip) {
                continue;
            }
            float s = dot(query, vectors[j]);
            if (size > 0 && s > scores[size - 1]) {
                int at = size - 1;
                while (at > 0 && s > scores[at - 1]) {
                    scores[at] = scores[at - 1];
                    best[at] = best[at - 1];
                    at--;
                }
                scores[at] = s;
                best[at] = j;
                found = Math.min(found + 1, size);
            }
        }
        List<Neighbour> result = new ArrayList<>(found);
        for (int i = 0; i < found; i++) {
            result.add(new Neighbour(Integer.toString(best[i]), scores[i], texts.get(best[i]), 0, 0));
        }
        return result;
    }

    /**
     * The k rows most similar to a query that is itself a row or a text like one, best first, leaving out rows of
     * the query's very text (in any case): a duplicate is no paraphrase.
     *
     * @param skip the query's own row, or -1
     */
    static List<Neighbour> nearestOthers(float[] query, String queryText, float[][] vectors, List<String> texts, int k,
                                         int skip) {
        return nearest(query, vectors, texts, k + 1, skip).stream()
                .filter(n -> !n.text().equalsIgnoreCase(queryText))
                .limit(k)
                .toList();
    }

    static float dot(float[] a, float[] b) {
        float sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += a[i] * b[i];
        }
        return sum;
    }
}
