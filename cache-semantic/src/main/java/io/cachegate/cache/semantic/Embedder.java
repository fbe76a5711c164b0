package io.cachegate.cache.semantic;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Turns texts into vectors without blocking the caller. A future that fails with
 * {@link EmbedderRejectedException} means "no vector now" (queue full, closed): treat it as a semantic miss.
 */
public interface Embedder extends AutoCloseable {

    /**
     * Embeds the texts, one vector per text in the same order. The future completes on the embedder's
     * own thread: continue with an {@code *Async} stage on your executor rather than run work there.
     */
    CompletableFuture<float[][]> embed(List<String> texts);

    /** Length of every vector. */
    int dimension();

    /**
     * Names the model, its weights (a hash of the files) and the pooling, so an index built with one
     * embedder is never searched with vectors of another.
     */
    String modelId();

    /** Stops the embedder; pending futures fail with {@link EmbedderRejectedException}. */
    @Override
    void close();
}
