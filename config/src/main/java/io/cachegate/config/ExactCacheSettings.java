package io.cachegate.config;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The exact-match cache.
 *
 * @param store where entries live
 * @param redisUri {@code redis://}, {@code rediss://}, {@code redis-sentinel://} or {@code redis-cluster://};
 *                 used when {@code store} is {@link ExactStore#REDIS} or {@link ExactStore#TIERED}
 * @param ttl entry lifetime when the route sets none
 * @param timeout Redis command timeout: a slower answer counts as a miss (fail open)
 * @param maxBytes bound of the in-memory store, in bytes of stored answers
 * @param l1Ttl lifetime of an entry in the in-process L1 of the tiered store; a purge made by another
 *              gateway is seen here within this time
 * @param l1MaxBytes bound of that L1, in bytes
 * @param compressAboveBytes bodies larger than this are stored compressed in Redis
 * @param redisQueueSize commands that may wait for Redis at once; more are rejected (a miss), never queued without bound
 * @param signingKey when present, Redis entries are HMAC-signed with it and an unsigned or badly signed one is a miss
 * @param health when a Redis store counts as degraded, and how far its command timeout follows measured latency
 * @param staleIfError how long past its TTL an entry may still answer when the backend cannot (zero: never); entries
 *                     are kept this much longer than their TTL
 * @param staleWhileRevalidate how long past its TTL an entry answers at once while one background call refreshes it
 *                             (zero: never); entries are kept for their TTL plus the longer of the two windows
 */
public record ExactCacheSettings(ExactStore store, String redisUri, Duration ttl, Duration timeout, long maxBytes,
                                 Duration l1Ttl, long l1MaxBytes, long compressAboveBytes, int redisQueueSize,
                                 Optional<SigningKey> signingKey, StoreHealthSettings health, Duration staleIfError,
                                 Duration staleWhileRevalidate) {

    public ExactCacheSettings {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(redisUri, "redisUri");
        Objects.requireNonNull(ttl, "ttl");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(l1Ttl, "l1Ttl");
        Objects.requireNonNull(signingKey, "signingKey");
        Objects.requireNonNull(health, "health");
        Objects.requireNonNull(staleIfError, "staleIfError");
        if (staleIfError.isNegative()) {
            throw new IllegalArgumentException("staleIfError must not be negative, was " + staleIfError);
        }
        Objects.requireNonNull(staleWhileRevalidate, "staleWhileRevalidate");
        if (staleWhileRevalidate.isNegative()) {
            throw new IllegalArgumentException("staleWhileRevalidate must not be negative, was "
                    + staleWhileRevalidate);
        }
    }

    /** These settings without {@code stale_while_revalidate}. */
    public ExactCacheSettings(ExactStore store, String redisUri, Duration ttl, Duration timeout, long maxBytes,
                              Duration l1Ttl, long l1MaxBytes, long compressAboveBytes, int redisQueueSize,
                              Optional<SigningKey> signingKey, StoreHealthSettings health, Duration staleIfError) {
        this(store, redisUri, ttl, timeout, maxBytes, l1Ttl, l1MaxBytes, compressAboveBytes, redisQueueSize,
                signingKey, health, staleIfError, CacheKeys.STALE_WHILE_REVALIDATE.fallback());
    }

    /** These settings without a stale window. */
    public ExactCacheSettings(ExactStore store, String redisUri, Duration ttl, Duration timeout, long maxBytes,
                              Duration l1Ttl, long l1MaxBytes, long compressAboveBytes, int redisQueueSize,
                              Optional<SigningKey> signingKey, StoreHealthSettings health) {
        this(store, redisUri, ttl, timeout, maxBytes, l1Ttl, l1MaxBytes, compressAboveBytes, redisQueueSize,
                signingKey, health, CacheKeys.STALE_IF_ERROR.fallback());
    }

    /** These settings with the default store health. */
    public ExactCacheSettings(ExactStore store, String redisUri, Duration ttl, Duration timeout, long maxBytes,
                              Duration l1Ttl, long l1MaxBytes, long compressAboveBytes, int redisQueueSize,
                              Optional<SigningKey> signingKey) {
        this(store, redisUri, ttl, timeout, maxBytes, l1Ttl, l1MaxBytes, compressAboveBytes, redisQueueSize,
                signingKey, StoreHealthSettings.defaults());
    }

    /** These settings without a signing key. */
    public ExactCacheSettings(ExactStore store, String redisUri, Duration ttl, Duration timeout, long maxBytes,
                              Duration l1Ttl, long l1MaxBytes, long compressAboveBytes, int redisQueueSize) {
        this(store, redisUri, ttl, timeout, maxBytes, l1Ttl, l1MaxBytes, compressAboveBytes, redisQueueSize,
                Optional.empty());
    }

    /** Every key of {@code cache.exact} at its default (see {@code CacheKeys}). */
    public static ExactCacheSettings defaults() {
        return new ExactCacheSettings(CacheKeys.EXACT_STORE.fallback(), CacheKeys.REDIS_URI.fallback(),
                CacheKeys.EXACT_TTL.fallback(), CacheKeys.TIMEOUT.fallback(), CacheKeys.MAX_BYTES.fallback(),
                CacheKeys.L1_TTL.fallback(), CacheKeys.L1_MAX_BYTES.fallback(), CacheKeys.COMPRESS_ABOVE.fallback(),
                CacheKeys.REDIS_QUEUE_SIZE.fallback(), CacheKeys.SIGNING_KEY.fallback(), StoreHealthSettings.defaults(),
                CacheKeys.STALE_IF_ERROR.fallback(), CacheKeys.STALE_WHILE_REVALIDATE.fallback());
    }
}
