package io.cachegate.gateway.cache.semantic;

import io.cachegate.cache.semantic.IndexEntry;
import io.cachegate.cache.semantic.IndexPurge;
import io.cachegate.cache.semantic.Neighbour;
import io.cachegate.cache.semantic.ReadableLabels;
import io.cachegate.cache.semantic.VectorIndex;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A brute-force index that answers at once on the caller's thread, so a stage test stays on one thread. Searches
 * can be made to fail (the index is down).
 */
final class MemoryVectorIndex implements VectorIndex {

    private final Map<String, IndexEntry> entries = new LinkedHashMap<>();
    private RuntimeException searchFailure;
    private int searches;

    void failSearches(RuntimeException failure) {
        this.searchFailure = failure;
    }

    /** Searches asked of this index, failed ones included. */
    int searches() {
        return searches;
    }

    boolean contains(String entryKey) {
        return entries.containsKey(entryKey);
    }

    @Override
    public CompletableFuture<Void> add(IndexEntry entry) {
        entries.put(entry.entryKey(), entry);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<List<Neighbour>> search(String scope, float[] vector, int k, long nowMillis,
                                                     ReadableLabels readable) {
        searches++;
        if (searchFailure != null) {
            return CompletableFuture.failedFuture(searchFailure);
        }
        List<Neighbour> found = new ArrayList<>();
        for (IndexEntry e : entries.values()) {
            if (e.scope().equals(scope) && !e.expiredAt(nowMillis) && readable.admits(e.labels())) {
                found.add(new Neighbour(e.entryKey(), dot(vector, e.vector()), e.text(), e.createdAtMillis(),
                        e.expiresAtMillis()));
            }
        }
        found.sort(Comparator.comparingDouble(Neighbour::similarity).reversed());
        return CompletableFuture.completedFuture(List.copyOf(found.subList(0, Math.min(k, found.size()))));
    }

    @Override
    public CompletableFuture<Void> delete(String entryKey) {
        entries.remove(entryKey);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Long> purge(IndexPurge purge) {
        long before = entries.size();
        entries.values().removeIf(purge::matches);
        return CompletableFuture.completedFuture(before - entries.size());
    }

    @Override
    public CompletableFuture<Long> sweepExpired(long nowMillis) {
        long before = entries.size();
        entries.values().removeIf(e -> e.expiredAt(nowMillis));
        return CompletableFuture.completedFuture(before - entries.size());
    }

    @Override
    public CompletableFuture<Long> size() {
        return CompletableFuture.completedFuture((long) entries.size());
    }

    @Override
    public String modelId() {
        return FakeEmbedder.MODEL_ID;
    }

    @Override
    public int dimension() {
        return FakeEmbedder.DIMENSION;
    }

    @Override
    public void close() {
        entries.clear();
    }

    private static float dot(float[] a, float[] b) {
        float sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += a[i] * b[i];
        }
        return sum;
    }
}
