package io.cachegate.gateway.cache.semantic;

import io.cachegate.cache.semantic.VectorIndex;
import io.cachegate.config.Ticker;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

/** Searches run at start in a scope no request has, so the first client search finds the index's code hot. */
final class IndexWarmUp {

    private IndexWarmUp() {
    }

    /** {@code left} searches one after another with random unit vectors; a failure ends them, never the start. */
    static CompletableFuture<Void> searches(VectorIndex index, int left, int k, Ticker ticker) {
        if (left == 0) {
            return CompletableFuture.completedFuture(null);
        }
        float[] vector = new float[index.dimension()];
        ThreadLocalRandom random = ThreadLocalRandom.current();
        double norm = 0;
        for (int i = 0; i < vector.length; i++) {
            vector[i] = (float) random.nextGaussian();
            norm += vector[i] * vector[i];
        }
        for (int i = 0; i < vector.length; i++) {
            vector[i] /= (float) Math.sqrt(norm); // the index takes unit vectors only
        }
        return index.search("cachegate-warm-up", vector, k, ticker.wallMillis())
                .handle((found, error) -> error)
                .thenCompose(error -> error == null ? searches(index, left - 1, k, ticker)
                        : CompletableFuture.completedFuture(null));
    }
}
