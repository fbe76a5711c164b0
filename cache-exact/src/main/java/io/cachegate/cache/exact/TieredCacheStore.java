package io.cachegate.cache.exact;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A small in-process L1 in front of a shared L2 (Redis). An L1 copy lives at most {@code l1Ttl} (and never longer
 * than the L2 entry). Over Redis the L1s of all gateways are kept coherent by {@link L1Invalidations}: an overwrite
 * or a purge through any gateway drops the copies in every other gateway's L1 at once, and while this gateway cannot
 * hear those invalidations its L1 is empty and bypassed (requests read Redis).
 */
public final class TieredCacheStore implements CacheStore {

    private static final int STRIPES = 1024;

    private final MemoryCacheStore l1;
    private final Duration l1Ttl;
    private final TtlAwareCacheStore l2;
    /** Null when nothing else shares the L2 (tests over an in-memory L2): the L1 is then always coherent. */
    private final L1Invalidations invalidations;
    // A lookup that read Redis before an invalidation of its key arrived must not put its (maybe older) copy into
    // the L1 after it. `epoch` moves on a purge or clear, a stripe on an invalidation of a key hashed to it: with
    // Redis tracking every write anywhere invalidates, and one counter would turn most fills away under writes.
    private final AtomicLong epoch = new AtomicLong();
    private final AtomicLongArray stripes = new AtomicLongArray(STRIPES);

    /** Takes ownership of both stores: {@link #close()} closes them. The L1 is not shared with other gateways. */
    public TieredCacheStore(MemoryCacheStore l1, Duration l1Ttl, TtlAwareCacheStore l2) {
        this(l1, l1Ttl, l2, null);
    }

    private TieredCacheStore(MemoryCacheStore l1, Duration l1Ttl, TtlAwareCacheStore l2, L1Invalidations invalidations) {
        if (l1Ttl.isZero() || l1Ttl.isNegative()) {
            throw new IllegalArgumentException("l1Ttl must be positive, was " + l1Ttl);
        }
        this.l1 = l1;
        this.l1Ttl = l1Ttl;
        this.l2 = l2;
        this.invalidations = invalidations;
    }

    /** An L1 over Redis kept coherent with the L1s of every other gateway on that Redis (see {@link L1Invalidations}). */
    static TieredCacheStore coherent(MemoryCacheStore l1, Duration l1Ttl, RedisCacheStore l2) {
        L1Invalidations invalidations = new L1Invalidations(l2);
        TieredCacheStore store = new TieredCacheStore(l1, l1Ttl, l2, invalidations);
        invalidations.start(store);
        return store;
    }

    @Override
    public CompletableFuture<Optional<CacheEntry>> get(CacheKey key) {
        if (!coherent()) {
            return l2.get(key);
        }
        Optional<CacheEntry> local = l1.get(key).join(); // the memory store completes before it returns
        if (local.isPresent()) {
            return CompletableFuture.completedFuture(local);
        }
        long seen = version(key);
        return l2.getWithTtl(key).thenApply(found -> found.map(timed -> {
            Duration keep = min(l1Ttl, timed.remaining());
            if (!keep.isZero() && coherent() && version(key) == seen) {
                l1.put(key, timed.entry(), keep);
            }
            return timed.entry();
        }));
    }

    /**
     * Writes through; over Redis, the other gateways then drop their copies of {@code key}, and so does this one when
     * Redis's tracking echoes the write back: the next lookup reads the entry once and keeps it.
     */
    @Override
    public CompletableFuture<Void> put(CacheKey key, CacheEntry entry, Duration ttl) {
        if (coherent()) {
            l1.put(key, entry, min(l1Ttl, ttl));
        }
        CompletableFuture<Void> written = l2.put(key, entry, ttl);
        return invalidations == null ? written : written.thenCompose(done -> invalidations.overwritten(key));
    }

    /**
     * Purges the L1 and the L2, then (over Redis) every other gateway's L1; completes with the L2's count (the L1
     * holds copies of L2 entries), or fails when the other gateways could not be told.
     */
    @Override
    public CompletableFuture<Long> purge(PurgeScope scope) {
        invalidate(scope);
        // Once more when Redis is done: a lookup here may have copied an entry into the L1 before Redis dropped it.
        CompletableFuture<Long> purged = l2.purge(scope).thenApply(count -> {
            invalidate(scope);
            return count;
        });
        return invalidations == null ? purged
                : purged.thenCompose(count -> invalidations.purged(scope).thenApply(told -> count));
    }

    /** Another gateway overwrote {@code key}: the next lookup reads Redis. */
    void invalidate(CacheKey key) {
        stripes.incrementAndGet(stripe(key));
        l1.invalidate(key);
    }

    /** {@code scope} was purged (here or through another gateway). */
    void invalidate(PurgeScope scope) {
        epoch.incrementAndGet();
        l1.purge(scope);
    }

    /** Empties the L1 (invalidations may have been missed). */
    void clearL1() {
        invalidate(PurgeScope.everything());
    }

    /** Moves whenever {@code key}'s L1 copy is invalidated (both terms only grow). */
    private long version(CacheKey key) {
        return epoch.get() + stripes.get(stripe(key));
    }

    private static int stripe(CacheKey key) {
        return (key.hashCode() & 0x7fffffff) % STRIPES;
    }

    /** True while the L1 may be read and filled (its metric: {@code cachegate_cache_l1_serving}). */
    public boolean coherent() {
        return invalidations == null || invalidations.live();
    }

    /** True while Redis's own tracking keeps the L1 coherent (its metric: {@code cachegate_cache_l1_tracked}). */
    public boolean tracked() {
        return tracking() == RedisTracking.State.LIVE;
    }

    /** Where Redis's own tracking of this L1 stands; {@code UNSUPPORTED} without a shared Redis. */
    RedisTracking.State tracking() {
        return invalidations == null ? RedisTracking.State.UNSUPPORTED : invalidations.tracking();
    }

    /** The in-process tier, for its size in metrics. */
    public MemoryCacheStore l1() {
        return l1;
    }

    @Override
    public void close() {
        try {
            if (invalidations != null) {
                invalidations.close();
            }
            l2.close();
        } finally {
            l1.close();
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
