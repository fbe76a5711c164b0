package io.cachegate.gateway.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The meters of embeddings batches cached per item: where each input item's vector came from, and how each batch
 * was answered. Tags are fixed words, never an input or a key.
 */
public final class EmbeddingItemMetrics {

    private final Counter fromCache;
    private final Counter sentUpstream;
    private final Counter duplicates;
    private final Counter hitBatches;
    private final Counter partialBatches;
    private final Counter missBatches;

    EmbeddingItemMetrics(MeterRegistry registry) {
        fromCache = items(registry, "cache");
        sentUpstream = items(registry, "upstream");
        duplicates = items(registry, "duplicate");
        hitBatches = batches(registry, "hit");
        partialBatches = batches(registry, "partial");
        missBatches = batches(registry, "miss");
    }

    private static Counter items(MeterRegistry registry, String source) {
        return Counter.builder("cachegate.embedding.items").tag("source", source)
                .description("Input items of embeddings batches cached per item, by where their vector came from "
                        + "(cache, upstream, duplicate: a repeat of another item of the batch, sent once)")
                .register(registry);
    }

    private static Counter batches(MeterRegistry registry, String outcome) {
        return Counter.builder("cachegate.embedding.batches").tag("outcome", outcome)
                .description("Embeddings batches cached per item, by outcome (hit: every item from the cache; "
                        + "partial: only the missing items sent upstream; miss: none cached)")
                .register(registry);
    }

    /** The counts for {@code /admin/stats}: items by source, batches by outcome, since the gateway started. */
    public record Snapshot(long itemsFromCache, long itemsSentUpstream, long duplicateItems, long hitBatches,
                           long partialBatches, long missBatches) {
    }

    public Snapshot snapshot() {
        return new Snapshot((long) fromCache.count(), (long) sentUpstream.count(), (long) duplicates.count(),
                (long) hitBatches.count(), (long) partialBatches.count(), (long) missBatches.count());
    }

    /** One batch looked up: {@code cached} positions from the cache, {@code sent} distinct items to the backend. */
    public void batch(int cached, int sent, int duplicated) {
        fromCache.increment(cached);
        sentUpstream.increment(sent);
        duplicates.increment(duplicated);
        (sent == 0 ? hitBatches : cached == 0 ? missBatches : partialBatches).increment();
    }
}
