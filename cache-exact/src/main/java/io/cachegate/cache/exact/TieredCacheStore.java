package io.cachegate.cache.exact;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A small in-process L1 in front of a shared L2 (Redis). An L1 copy lives at most {@code l1Ttl}
 * (and never longer than the L2 entry), so a purge made through another gateway, which clears
 * only Redis and its own L1, is seen here within {@code l1Ttl}.
 */
public final class TieredCacheStore implements CacheStore {

    private final MemoryCacheStore l1;
    private final Duration l1Ttl;
    private final TtlAwareCacheStore l2;

    /** Takes ownership of both stores: {@link #close()} closes them. */
    public TieredCacheStore(MemoryCacheStore l1, Duration l1Ttl, TtlAwareCacheStore l2) {
        if (l1Ttl.isZero() || l1Ttl.isNegative()) {
            throw new IllegalArgumentException("l1Ttl must be positive, was " + l1Ttl);
        }
        this.l1 = l1;
        this.l1Ttl = l1Ttl;
        this.l2 = l2;
    }

    @Override
    public CompletableFuture<Optional<CacheEntry>> get(CacheKey key) {
        Optional<CacheEntry> local = l1.get(key).join(); // the memory store completes before it returns
        if (local.isPresent()) {
            return CompletableFuture.completedFuture(local);
        }
        return l2.getWithTtl(key).thenApply(found -> found.map(timed -> {
            Duration keep = min(l1Ttl, timed.remaining());
            if (!keep.isZero()) {
                l1.put(key, timed.entry(), keep);
            }
            return timed.entry();
        }));
    }

    @Override
    public CompletableFuture<Void> put(CacheKey key, CacheEntry entry, Duration ttl) {
        l1.put(key, entry, min(l1Ttl, ttl));
        return l2.put(key, entry, ttl);
    }

    /** Purges the L1 and the L2; completes with the L2's count (the L1 holds copies of L2 entries). */
    @Override
    public CompletableFuture<Long> purge(PurgeScope scope) {
        l1.purge(scope);
        return l2.purge(scope);
    }

    /** The in-process tier, for its size in metrics. */
    public MemoryCacheStore l1() {
        return l1;
    }

    @Override
    public void close() {
        try {
            l2.close();
        } finally {
            l1.close();
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
