package io.cachegate.gateway.cache.semantic;

import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.CacheStore;
import io.cachegate.gateway.cache.CacheableRequest;
import io.cachegate.gateway.cache.StoreWrites;
import io.cachegate.gateway.metrics.GatewayMetrics;
import java.time.Duration;

/**
 * Files a semantic hit's answer under the request's own exact key too, so its repeats are exact hits, for what is
 * left of the matched entry's lifetime; a failed write costs nothing but its count.
 */
final class ExactWarming {

    private final CacheStore store;
    private final GatewayMetrics metrics;

    ExactWarming(CacheStore store, GatewayMetrics metrics) {
        this.store = store;
        this.metrics = metrics;
    }

    /** Writes {@code entry} under {@code c}'s key until {@code expiresAtMillis}, when the request may be stored. */
    void warm(CacheableRequest c, CacheEntry entry, long expiresAtMillis, long nowMillis) {
        long remaining = expiresAtMillis - nowMillis;
        if (!c.decision().write() || remaining <= 0) {
            return;
        }
        StoreWrites.put(store, c.key(), entry, Duration.ofMillis(remaining), metrics);
    }
}
