package io.cachegate.cache.exact;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Policy.VarExpiration;
import io.cachegate.config.Ticker;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The in-process store: Caffeine bounded by the bytes of the stored answers (not their count, since
 * one answer may be 200 bytes or 200 KB), each entry with its own TTL. Every operation completes
 * before it returns.
 */
public final class MemoryCacheStore implements TtlAwareCacheStore {

    // Per-entry bookkeeping beyond the body: Caffeine node, key strings, record, tags set.
    static final int OVERHEAD_BYTES = 256;

    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private final Cache<CacheKey, Stored> cache;
    private final VarExpiration<CacheKey, Stored> expiration;

    public MemoryCacheStore(long maxBytes) {
        this(maxBytes, Ticker.system());
    }

    /** With an injected {@code ticker}, so tests move time instead of sleeping. */
    public MemoryCacheStore(long maxBytes, Ticker ticker) {
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("maxBytes must be positive, was " + maxBytes);
        }
        this.cache = Caffeine.newBuilder()
                .maximumWeight(maxBytes)
                .weigher((CacheKey key, Stored stored) -> stored.weight)
                .expireAfter(new PerEntryTtl())
                .ticker(ticker::nanos)
                // Maintenance (eviction, expiry) runs on the calling thread: amortised and small, and
                // it keeps the common ForkJoinPool out of the request path and tests deterministic.
                .executor(Runnable::run)
                .build();
        this.expiration = cache.policy().expireVariably().orElseThrow();
    }

    @Override
    public CompletableFuture<Optional<CacheEntry>> get(CacheKey key) {
        Stored stored = cache.getIfPresent(key);
        return CompletableFuture.completedFuture(stored == null ? Optional.empty() : Optional.of(stored.entry));
    }

    @Override
    public CompletableFuture<Optional<Timed>> getWithTtl(CacheKey key) {
        Stored stored = cache.getIfPresent(key);
        if (stored == null) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        Duration remaining = expiration.getExpiresAfter(key).orElse(Duration.ZERO);
        return CompletableFuture.completedFuture(Optional.of(new Timed(stored.entry, remaining)));
    }

    @Override
    public CompletableFuture<Void> put(CacheKey key, CacheEntry entry, Duration ttl) {
        if (ttl.isZero() || ttl.isNegative()) {
            throw new IllegalArgumentException("ttl must be positive, was " + ttl);
        }
        cache.put(key, new Stored(entry, ttl.toNanos(), weigh(key, entry)));
        return DONE;
    }

    @Override
    public CompletableFuture<Long> purge(PurgeScope scope) {
        long removed = 0;
        for (Map.Entry<CacheKey, Stored> e : cache.asMap().entrySet()) {
            // remove(key, value): an entry replaced since the iterator saw it is not counted twice.
            if (scope.matches(e.getKey(), e.getValue().entry) && cache.asMap().remove(e.getKey(), e.getValue())) {
                removed++;
            }
        }
        return CompletableFuture.completedFuture(removed);
    }

    /** Removes the entry under {@code key}, if any. */
    public void invalidate(CacheKey key) {
        cache.invalidate(key);
    }

    /** Entries held now (expired ones may linger until the next maintenance). */
    public long size() {
        return cache.estimatedSize();
    }

    /** Bytes held now, as the weigher counts them. */
    public long weightedBytes() {
        return cache.policy().eviction().orElseThrow().weightedSize().orElse(0);
    }

    @Override
    public void close() {
        cache.invalidateAll();
    }

    static int weigh(CacheKey key, CacheEntry entry) {
        long bytes = (long) OVERHEAD_BYTES + entry.body().length
                + 2L * (key.tenant().length() + key.modelVersion().length() + key.digest().length()
                        + entry.modelVersion().length() + entry.originRequestId().length() + entry.userDigest().length());
        for (String tag : entry.tags()) {
            bytes += 48 + 2L * tag.length();
        }
        for (String label : entry.labels()) {
            bytes += 48 + 2L * label.length();
        }
        return (int) Math.min(Integer.MAX_VALUE, bytes);
    }

    private record Stored(CacheEntry entry, long ttlNanos, int weight) {
    }

    private static final class PerEntryTtl implements Expiry<CacheKey, Stored> {
        @Override
        public long expireAfterCreate(CacheKey key, Stored value, long currentTime) {
            return value.ttlNanos;
        }

        @Override
        public long expireAfterUpdate(CacheKey key, Stored value, long currentTime, long currentDuration) {
            return value.ttlNanos;
        }

        @Override
        public long expireAfterRead(CacheKey key, Stored value, long currentTime, long currentDuration) {
            return currentDuration;
        }
    }
}
