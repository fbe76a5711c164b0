package io.cachegate.cache.exact;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A store that can also tell how long an entry has left, so a tier in front of it never keeps a
 * copy longer than the original lives.
 */
public interface TtlAwareCacheStore extends CacheStore {

    /** The entry under {@code key} with its remaining lifetime, or empty when absent or expired. */
    CompletableFuture<Optional<Timed>> getWithTtl(CacheKey key);

    /** An entry and the time it has left. */
    record Timed(CacheEntry entry, Duration remaining) {
    }
}
