package io.cachegate.cache.exact;

import io.cachegate.config.StoreHealthSettings;
import java.time.Duration;
import java.util.Objects;

/**
 * How the Redis store talks to Redis.
 *
 * @param commandTimeout a GET or SET slower than this counts as a failure (a miss for the caller); the cache store's
 *     timeout follows measured latency from here up to {@code health.timeoutMax()}
 * @param purgeCommandTimeout the timeout of each SCAN, SSCAN and UNLINK of a purge (larger: they walk the key space),
 *     and of each PUBLISH of an L1 invalidation
 * @param requestQueueSize commands sent and not yet answered; more are rejected at once instead of queued
 * @param warnInterval at most one warning per interval while Redis fails
 * @param health when the cache store counts as degraded (see {@link StoreCircuit}) and how far its timeout adapts
 */
public record RedisStoreOptions(Duration commandTimeout, Duration purgeCommandTimeout, int requestQueueSize,
                                Duration warnInterval, StoreHealthSettings health) {

    public RedisStoreOptions {
        positive(commandTimeout, "commandTimeout");
        positive(purgeCommandTimeout, "purgeCommandTimeout");
        positive(warnInterval, "warnInterval");
        Objects.requireNonNull(health, "health");
        if (requestQueueSize < 1) {
            throw new IllegalArgumentException("requestQueueSize must be positive, was " + requestQueueSize);
        }
    }

    /** As {@link #of(Duration, int, StoreHealthSettings)} with the default store health. */
    public static RedisStoreOptions of(Duration commandTimeout, int requestQueueSize) {
        return of(commandTimeout, requestQueueSize, StoreHealthSettings.defaults());
    }

    /** With a purge command timeout of 20 command timeouts (at least 2s) and a warning at most every 10s. */
    public static RedisStoreOptions of(Duration commandTimeout, int requestQueueSize, StoreHealthSettings health) {
        Duration purge = commandTimeout.multipliedBy(20);
        return new RedisStoreOptions(commandTimeout, purge.compareTo(Duration.ofSeconds(2)) < 0 ? Duration.ofSeconds(2) : purge,
                requestQueueSize, Duration.ofSeconds(10), health);
    }

    private static void positive(Duration d, String name) {
        if (d == null || d.isZero() || d.isNegative()) {
            throw new IllegalArgumentException(name + " must be positive, was " + d);
        }
    }
}
