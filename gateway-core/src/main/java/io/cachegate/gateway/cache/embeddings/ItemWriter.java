package io.cachegate.gateway.cache.embeddings;

import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.CacheKey;
import io.cachegate.cache.exact.CacheStore;
import io.cachegate.config.Ticker;
import io.cachegate.gateway.cache.EntryAccess;
import io.cachegate.gateway.cache.StoreWrites;
import io.cachegate.gateway.metrics.GatewayMetrics;
import java.time.Duration;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores the vectors a backend answer added to a batch, one entry per distinct item, filed like a whole answer
 * would be (the request's TTL, tags, labels and end user) and asynchronously: a store that fails is counted, the
 * client's answer is never held up by it.
 */
final class ItemWriter {

    private static final Logger log = LoggerFactory.getLogger(ItemWriter.class);

    private final CacheStore store;
    private final Duration ttl;
    private final Set<String> tags;
    private final EntryAccess access;
    private final String originId;
    private final Ticker ticker;
    private final GatewayMetrics metrics;

    ItemWriter(CacheStore store, Duration ttl, Set<String> tags, EntryAccess access, String originId, Ticker ticker,
               GatewayMetrics metrics) {
        this.store = store;
        this.ttl = ttl;
        this.tags = tags;
        this.access = access;
        this.originId = originId;
        this.ticker = ticker;
        this.metrics = metrics;
    }

    void store(EmbeddingBatch batch, EmbeddingAnswer.Merged answer) {
        long now = ticker.wallMillis();
        for (int d = 0; d < batch.distinctCount(); d++) {
            if (answer.fresh()[d] == null) {
                continue;
            }
            CacheKey key = batch.distinctKeys().get(d);
            byte[] body = EmbeddingAnswer.itemBody(answer.model(), answer.fresh()[d]);
            CacheEntry entry = new CacheEntry(body, now, key.modelVersion(), originId, answer.freshTokens()[d], 0,
                    tags, access.declared(), access.userDigest());
            StoreWrites.put(store, key, entry, ttl, metrics).whenComplete((ok, error) -> {
                if (error != null) {
                    log.debug("request {}: embedding item write failed: {}", originId, error.toString());
                }
            });
        }
    }
}
