package io.cachegate.gateway.cache;

import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.CacheKey;
import io.cachegate.cache.exact.CacheStore;
import io.cachegate.gateway.metrics.GatewayMetrics;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Writes one entry to the exact store and counts how the write went (entries and bytes written, or a write error),
 * for every writer alike: a captured answer, an embeddings item, a semantic hit filed under its own key.
 */
public final class StoreWrites {

    private StoreWrites() {
    }

    /**
     * Writes {@code entry} under {@code key} for {@code ttl}; the future fails when the store refused the write (it
     * threw) or failed it, and is counted either way.
     */
    public static CompletableFuture<Void> put(CacheStore store, CacheKey key, CacheEntry entry, Duration ttl,
                                              GatewayMetrics metrics) {
        CompletableFuture<Void> write;
        try {
            write = store.put(key, entry, ttl);
        } catch (RuntimeException e) {
            write = CompletableFuture.failedFuture(e);
        }
        return write.whenComplete((ok, error) -> {
            if (error == null) {
                metrics.cacheWritten(entry.body().length);
            } else {
                metrics.cacheWriteFailed();
            }
        });
    }
}
