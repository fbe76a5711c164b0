package io.cachegate.cache.semantic;

import java.util.Random;
import java.util.Set;

/** Unit vectors and entries for index tests. */
final class TestVectors {

    static final int DIMENSION = 16;
    static final long NOW = 1_700_000_000_000L;
    static final long HOUR = 3_600_000L;

    private TestVectors() {
    }

    static float[] random(Random random, int dimension) {
        float[] v = new float[dimension];
        for (int i = 0; i < dimension; i++) {
            v[i] = (float) random.nextGaussian();
        }
        return normalise(v);
    }

    /** A unit vector pointing along axis {@code i} ({@code i} below the dimension). */
    static float[] axis(int i) {
        float[] v = new float[DIMENSION];
        v[i] = 1;
        return v;
    }

    /** {@code base} moved towards axis {@code i} by {@code amount}, renormalised: the larger, the farther from base. */
    static float[] towards(float[] base, int i, float amount) {
        float[] v = base.clone();
        v[i] += amount;
        return normalise(v);
    }

    static float[] normalise(float[] v) {
        double sum = 0;
        for (float x : v) {
            sum += (double) x * x;
        }
        float norm = (float) Math.sqrt(sum);
        float[] out = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = v[i] / norm;
        }
        return out;
    }

    static IndexEntry entry(String key, String scope, float[] vector) {
        return new IndexEntry(key, scope, "acme", "m@1", Set.of(), vector, "text of " + key, NOW, NOW + HOUR);
    }

    static IndexEntry entry(String key, String scope, String tenant, String modelVersion, Set<String> tags, float[] vector) {
        return new IndexEntry(key, scope, tenant, modelVersion, tags, vector, "text of " + key, NOW, NOW + HOUR);
    }

    static IndexEntry labelled(String key, String scope, float[] vector, Set<String> labels, String userDigest) {
        return new IndexEntry(key, scope, "acme", "m@1", Set.of(), vector, "text of " + key, NOW, NOW + HOUR, labels,
                userDigest);
    }

    static IndexEntry expiring(String key, String scope, float[] vector, long expiresAt) {
        return new IndexEntry(key, scope, "acme", "m@1", Set.of(), vector, "text of " + key, NOW, expiresAt);
    }
}
