package io.cachegate.gateway.cache.exact;

import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.Freshness;
import io.cachegate.gateway.cache.CachedAnswerWriter;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.StandIn;

/**
 * An exact entry past its TTL but within the request's stale window, kept ready by the exact cache stage to answer
 * in place of an error the backend's failure or overload causes ({@code stale_if_error}). While the backend answers,
 * it never does: the request is a miss and its answer replaces the entry.
 */
final class StaleIfError implements StandIn {

    private final CacheEntry entry;
    private final long windowMillis;
    private final long lookupNanos;

    StaleIfError(CacheEntry entry, long windowMillis, long lookupNanos) {
        this.entry = entry;
        this.windowMillis = windowMillis;
        this.lookupNanos = lookupNanos;
    }

    @Override
    public boolean answer(Exchange x, String cause) {
        // Judged again now: a failure that took a timeout to show may come after the entry left its window.
        long now = x.ticker().wallMillis();
        return Freshness.of(entry, now, windowMillis) == Freshness.STALE
                && CachedAnswerWriter.stale(x, entry, lookupNanos, cause, Freshness.pastTtlMillis(entry, now));
    }
}
