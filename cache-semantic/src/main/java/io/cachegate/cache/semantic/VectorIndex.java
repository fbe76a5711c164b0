package io.cachegate.cache.semantic;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Where semantic-cache entries live: vectors of embedded texts, each pointing at an exact-cache key, searched
 * by cosine similarity inside one scope. Every operation is asynchronous and never blocks the caller; a
 * failed future means the index is unavailable, which callers treat as a semantic miss (fail open).
 */
public interface VectorIndex extends AutoCloseable {

    /** Adds {@code entry}, replacing any entry with the same key; completes once searches can see it. */
    CompletableFuture<Void> add(IndexEntry entry);

    /**
     * The {@code k} nearest entries of exactly {@code scope} that have not expired at {@code nowMillis} and that
     * {@code readable} admits by their labels, most similar first. {@code vector} must be L2-normalised and of
     * the index's dimension.
     */
    CompletableFuture<List<Neighbour>> search(String scope, float[] vector, int k, long nowMillis,
                                              ReadableLabels readable);

    /** As above, whatever the entries' labels (tools and benchmarks; the gateway always passes the reader's). */
    default CompletableFuture<List<Neighbour>> search(String scope, float[] vector, int k, long nowMillis) {
        return search(scope, vector, k, nowMillis, ReadableLabels.any());
    }

    /** Removes the entry pointing at {@code entryKey}, if any (a dangling pointer, or the exact entry purged). */
    CompletableFuture<Void> delete(String entryKey);

    /** Removes every entry in {@code purge}; completes with how many were removed. */
    CompletableFuture<Long> purge(IndexPurge purge);

    /** Removes every entry expired at {@code nowMillis}; completes with how many were removed. */
    CompletableFuture<Long> sweepExpired(long nowMillis);

    /** How many entries the index holds (expired ones included until swept). */
    CompletableFuture<Long> size();

    /** The embedding model this index was built for; vectors of another model never share it. */
    String modelId();

    /** The vector dimension of {@link #modelId()}. */
    int dimension();

    @Override
    void close();
}
