package io.cachegate.gateway.cache.semantic;

import io.cachegate.cache.semantic.Embedder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * An embedder of 4 dimensions that answers at once on the caller's thread: each text gets the vector the test
 * gave it (normalised), any other text the last axis. It can be made to fail its futures or to throw.
 */
final class FakeEmbedder implements Embedder {

    static final int DIMENSION = 4;
    static final String MODEL_ID = "fake-embedder-4";

    private final Map<String, float[]> vectors = new HashMap<>();
    private RuntimeException failure;
    private boolean throwing;
    private int calls;
    private boolean closed;

    /** {@code text} embeds to {@code vector}, normalised. */
    FakeEmbedder with(String text, float... vector) {
        vectors.put(text, normalise(vector));
        return this;
    }

    /** Every embedding from now on fails with {@code error} (a full queue, a broken model). */
    void failWith(RuntimeException error) {
        this.failure = error;
    }

    /** Every call from now on throws instead of returning a future. */
    void throwOnCall() {
        this.throwing = true;
    }

    int calls() {
        return calls;
    }

    boolean closed() {
        return closed;
    }

    @Override
    public CompletableFuture<float[][]> embed(List<String> texts) {
        calls++;
        if (throwing) {
            throw new IllegalStateException("the embedder is broken");
        }
        if (failure != null) {
            return CompletableFuture.failedFuture(failure);
        }
        float[][] out = new float[texts.size()][];
        for (int i = 0; i < texts.size(); i++) {
            out[i] = vectors.getOrDefault(texts.get(i), axis(DIMENSION - 1)).clone();
        }
        return CompletableFuture.completedFuture(out);
    }

    @Override
    public int dimension() {
        return DIMENSION;
    }

    @Override
    public String modelId() {
        return MODEL_ID;
    }

    @Override
    public void close() {
        closed = true;
    }

    static float[] axis(int i) {
        float[] v = new float[DIMENSION];
        v[i] = 1;
        return v;
    }

    static float[] normalise(float... v) {
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
}
