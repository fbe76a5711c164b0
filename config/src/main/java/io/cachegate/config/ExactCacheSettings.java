package io.cachegate.config;

import java.time.Duration;
import java.util.Objects;

/**
 * The exact-match cache.
 *
 * @param redisUri used only when {@code store} is {@link ExactStore#REDIS}
 * @param maxEntries bound of the in-memory store (and of the in-process L1 in front of Redis)
 */
public record ExactCacheSettings(ExactStore store, String redisUri, Duration ttl, long maxEntries) {

    public ExactCacheSettings {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(redisUri, "redisUri");
        Objects.requireNonNull(ttl, "ttl");
    }

    /** Memory, {@code redis://127.0.0.1:6379}, 1h, 100000 entries. */
    public static ExactCacheSettings defaults() {
        return new ExactCacheSettings(ExactStore.MEMORY, "redis://127.0.0.1:6379", Duration.ofHours(1), 100_000);
    }
}
