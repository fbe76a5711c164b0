package io.cachegate.cache.exact;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Where exact-cache entries live (in-process, Redis, or both). Every operation is asynchronous and
 * never blocks the caller's thread. A store that fails completes the future exceptionally; the
 * caller treats that as a miss (fail open) and never fails the client's request because of it.
 */
public interface CacheStore extends AutoCloseable {

    /** The entry under {@code key}, or empty when absent or expired. */
    CompletableFuture<Optional<CacheEntry>> get(CacheKey key);

    /**
     * The entries under {@code keys}, in their order; fails when any lookup fails. Every lookup is sent before any
     * answer is awaited: Redis's commands share one pipelined connection, so a batch costs about one round trip.
     */
    default CompletableFuture<List<Optional<CacheEntry>>> getAll(List<CacheKey> keys) {
        List<CompletableFuture<Optional<CacheEntry>>> lookups = new ArrayList<>(keys.size());
        for (CacheKey key : keys) {
            lookups.add(get(key));
        }
        return CompletableFuture.allOf(lookups.toArray(CompletableFuture<?>[]::new))
                .thenApply(done -> lookups.stream().map(CompletableFuture::join).toList());
    }

    /** Stores {@code entry} under {@code key} for {@code ttl} (always positive: no entry lives forever). */
    CompletableFuture<Void> put(CacheKey key, CacheEntry entry, Duration ttl);

    /** Removes every entry in {@code scope}; completes with how many were removed. */
    CompletableFuture<Long> purge(PurgeScope scope);

    @Override
    void close();
}
