package io.cachegate.benchmarks;

import java.util.List;
import java.util.SplittableRandom;

/**
 * The unit vectors {@code bench semantic --part search} stores and queries with: {@code random} (uniform on the
 * sphere: every entry about as far as any other, the hardest case for a graph index) or {@code clustered} (as real
 * embeddings are: a direction every vector shares, one of {@code entries / 100} topic centroids, and a vector's own
 * part, weighted so that two unrelated entries have cosine about {@link #SHARED}, two of one topic about
 * {@code SHARED + TOPIC}, a paraphrase 0.93).
 */
final class BenchVectors {

    static final List<String> KINDS = List.of("random", "clustered");
    /** The squared weight of the direction all clustered vectors share: unrelated texts' cosine under bge-small. */
    static final double SHARED = 0.40;
    /** The squared weight of a clustered vector's topic centroid. */
    static final double TOPIC = 0.35;
    static final int ENTRIES_PER_TOPIC = 100;

    private final String kind;
    private final float[] shared;
    private final float[][] topics;

    private BenchVectors(String kind, float[] shared, float[][] topics) {
        this.kind = kind;
        this.shared = shared;
        this.topics = topics;
    }

    /** The vectors of {@code kind} for an index of {@code entries}; the topics are drawn from a seed of their own. */
    static BenchVectors of(String kind, int entries, int dimension) {
        if ("random".equals(kind)) {
            return new BenchVectors(kind, null, null);
        }
        if (!"clustered".equals(kind)) {
            throw new IllegalArgumentException("vectors must be random or clustered (was \"" + kind + "\")");
        }
        SplittableRandom seed = new SplittableRandom(1_000_003);
        float[] shared = unit(seed, dimension);
        float[][] topics = new float[Math.max(1, entries / ENTRIES_PER_TOPIC)][];
        for (int i = 0; i < topics.length; i++) {
            topics[i] = unit(seed, dimension);
        }
        return new BenchVectors(kind, shared, topics);
    }

    String kind() {
        return kind;
    }

    /** A stored entry; for clustered vectors, one of a topic drawn at random. */
    float[] next(SplittableRandom random, int dimension) {
        float[] own = unit(random, dimension);
        if (topics == null) {
            return own;
        }
        float[] topic = topics[random.nextInt(topics.length)];
        double a = Math.sqrt(SHARED);
        double b = Math.sqrt(TOPIC);
        double c = Math.sqrt(1 - SHARED - TOPIC);
        float[] v = new float[dimension];
        for (int i = 0; i < dimension; i++) {
            v[i] = (float) (a * shared[i] + b * topic[i] + c * own[i]);
        }
        return normalized(v);
    }

    /** A uniformly random unit vector. */
    static float[] unit(SplittableRandom random, int dimension) {
        float[] v = new float[dimension];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) (random.nextDouble() * 2 - 1);
        }
        return normalized(v);
    }

    private static float[] normalized(float[] v) {
        double norm = 0;
        for (float x : v) {
            norm += x * x;
        }
        float scale = (float) (1 / Math.sqrt(norm));
        for (int i = 0; i < v.length; i++) {
            v[i] *= scale;
        }
        return v;
    }
}
