package io.cachegate.gateway.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.CacheKey;
import io.cachegate.cache.exact.CacheStore;
import io.cachegate.gateway.cache.CacheKeyStage;
import io.cachegate.gateway.cache.CacheableRequest;
import io.cachegate.gateway.exchange.Answers;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.exchange.RecordingNext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;

/**
 * Requests keyed as the chain keys them, and their entries put in a store as an earlier answer wrote them (fresh for
 * {@code ttl}, kept 10 minutes longer): the fixture of the stale-answer tests, which move the clock past an entry's
 * TTL and look it up again.
 */
final class StoredEntries {

    private final Exchanges exchanges;
    private final CacheKeyStage keys;
    private final CacheStore store;
    private final Duration ttl;

    StoredEntries(Exchanges exchanges, CacheKeyStage keys, CacheStore store, Duration ttl) {
        this.exchanges = exchanges;
        this.keys = keys;
        this.store = store;
        this.ttl = ttl;
    }

    /** A request whose entry was written {@code later} before it is looked up. */
    Exchange storedThenLater(String body, Duration later, String... headers) {
        store(keyed(body));
        exchanges.ticker().advance(later);
        return keyed(body, headers);
    }

    /** Stores the answer {@link Answers#HELLO} under {@code x}'s key, written now. */
    void store(Exchange x) {
        CacheKey key = x.get(CacheableRequest.KEY).key();
        CacheEntry entry = new CacheEntry(Answers.HELLO.getBytes(StandardCharsets.UTF_8),
                exchanges.ticker().wallMillis(), "llama@1", "origin-1", 5, 2, Set.of()).freshFor(ttl.toMillis());
        store.put(key, entry, ttl.plusMinutes(10)).join();
    }

    /** A chat request with {@code body}, through the key stage: cacheable. */
    Exchange keyed(String body, String... headers) {
        Exchange x = exchanges.chat(body, headers);
        keys.handle(x, new RecordingNext());
        assertThat(x.get(CacheableRequest.KEY)).as("cacheable").isNotNull();
        return x;
    }
}
