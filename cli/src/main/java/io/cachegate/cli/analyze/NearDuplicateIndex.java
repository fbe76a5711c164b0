package io.cachegate.cli.analyze;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * The embedded texts of earlier distinct requests, per semantic scope (the gateway's {@code SemanticQuery} scope:
 * tenant, model, system prompt, parameters), searched by brute force for the most similar one. At most
 * {@code maxVectors} vectors are kept in all; beyond that the oldest is dropped first, as a semantic index with
 * {@code max_entries} evicts, so a near-duplicate of a request older than the window is not seen.
 */
final class NearDuplicateIndex {

    private final int maxVectors;
    private final Map<String, ArrayDeque<float[]>> byScope = new HashMap<>();
    /** Scopes in insertion order of their vectors: the head names the scope holding the oldest vector. */
    private final ArrayDeque<String> order = new ArrayDeque<>();
    private long evicted;

    NearDuplicateIndex(int maxVectors) {
        if (maxVectors < 1) {
            throw new IllegalArgumentException("maxVectors must be at least 1, was " + maxVectors);
        }
        this.maxVectors = maxVectors;
    }

    /** The highest cosine similarity of {@code vector} (unit length) with the scope's vectors; -1 when none. */
    float bestSimilarity(String scope, float[] vector) {
        ArrayDeque<float[]> vectors = byScope.get(scope);
        float best = -1;
        if (vectors != null) {
            for (float[] other : vectors) {
                best = Math.max(best, dot(vector, other));
            }
        }
        return best;
    }

    void add(String scope, float[] vector) {
        if (order.size() == maxVectors) {
            String oldest = order.removeFirst();
            ArrayDeque<float[]> vectors = byScope.get(oldest);
            vectors.removeFirst();
            if (vectors.isEmpty()) {
                byScope.remove(oldest);
            }
            evicted++;
        }
        byScope.computeIfAbsent(scope, s -> new ArrayDeque<>()).addLast(vector);
        order.addLast(scope);
    }

    /** Vectors dropped at the cap. */
    long evicted() {
        return evicted;
    }

    private static float dot(float[] a, float[] b) {
        float sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += a[i] * b[i];
        }
        return sum;
    }
}
