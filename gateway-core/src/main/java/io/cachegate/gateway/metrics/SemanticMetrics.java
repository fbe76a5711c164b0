package io.cachegate.gateway.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The semantic cache's meters: similarity of hits and near misses, embedding and search latency, batch sizes,
 * index size and evictions, write-backs and fail-open events. Lookups by outcome are counted with the exact
 * cache's ({@code cachegate.cache.lookups{layer="semantic"}}).
 */
public final class SemanticMetrics {

    /** Similarity buckets: where thresholds live, finely; below 0.8 nothing is decided. */
    private static final double[] SIMILARITY_BUCKETS = {0.5, 0.6, 0.7, 0.8, 0.85, 0.88, 0.9, 0.91, 0.92, 0.93, 0.94,
        0.95, 0.96, 0.97, 0.98, 0.99, 1.0};

    private final MeterRegistry registry;
    private final DistributionSummary hitSimilarity;
    private final DistributionSummary nearMissSimilarity;
    private final Timer embedTimer;
    private final Timer searchTimer;
    private final ConcurrentMap<String, Counter> counters = new ConcurrentHashMap<>();
    /** Micrometer holds function meters' objects weakly; these suppliers exist nowhere else. */
    private final List<Object> watched = new CopyOnWriteArrayList<>();

    SemanticMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.hitSimilarity = similarity("hit");
        this.nearMissSimilarity = similarity("near_miss");
        this.embedTimer = latency("cachegate.semantic.embed.latency", "Time to embed one request's text, queueing included");
        this.searchTimer = latency("cachegate.semantic.search.latency", "Time of one nearest-neighbour search in the index");
    }

    /** The similarity of a hit, or of the best neighbour of a lookup that found neighbours but decided to miss. */
    public void similarity(boolean hit, double similarity) {
        (hit ? hitSimilarity : nearMissSimilarity).record(similarity);
    }

    public void embedTime(long nanos) {
        embedTimer.record(nanos, TimeUnit.NANOSECONDS);
    }

    public void searchTime(long nanos) {
        searchTimer.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** The cache was skipped because a part failed or was full: {@code stage} is embed, search, fetch or write. */
    public void failOpen(String stage) {
        counter("cachegate.semantic.fail_open", "Semantic lookups and writes skipped because a part failed or was full",
                "stage", stage).increment();
    }

    /** A write-back to the index: {@code outcome} is written, failed or skipped. */
    public void writeBack(String outcome) {
        counter("cachegate.semantic.writes", "Index entries written after a miss, by outcome", "outcome", outcome)
                .increment();
    }

    /**
     * A lookup run beside the request's upstream call ({@code speculative_upstream}), by what became of the call:
     * a miss whose call was under way ({@code used}) or waited for the decision ({@code waited}: no idle capacity,
     * another request's call to follow), a hit whose call was {@code cancelled} or had not started.
     */
    public void speculation(String outcome) {
        counter("cachegate.semantic.speculations", "Semantic lookups run beside the upstream call, by what became of "
                + "the call", "outcome", outcome).increment();
    }

    /**
     * The error budget's evidence file, by {@code outcome}: at start read, none (no file, or one of another model or
     * other priors) or unreadable (not whole: started without it); then written or write_failed.
     */
    public void evidenceFile(String outcome) {
        counter("cachegate.semantic.evidence.file", "Reads and writes of the error budget's evidence file, by outcome",
                "outcome", outcome).increment();
    }

    /** An index entry whose exact-cache entry was gone (purged or expired): removed, and the lookup a miss. */
    public void dangling() {
        counter("cachegate.semantic.dangling", "Index entries found pointing at a missing exact entry", null, null)
                .increment();
    }

    /**
     * Exposes the index and the embedder: entries (refreshed in the background), write-backs in progress, evictions, and the embedder's
     * batches and texts (their ratio is the mean batch size), queue and rejections.
     */
    public void watch(LongSupplier indexEntries, IntSupplier pendingWrites, LongSupplier evictions, LongSupplier batches, LongSupplier texts,
                      LongSupplier queued, LongSupplier rejected) {
        watched.addAll(List.of(indexEntries, pendingWrites, evictions, batches, texts, queued, rejected));
        Gauge.builder("cachegate.semantic.index.entries", indexEntries, LongSupplier::getAsLong)
                .description("Entries in the semantic index (expired ones until swept)").register(registry);
        Gauge.builder("cachegate.semantic.writes.pending", pendingWrites, IntSupplier::getAsInt)
                .description("Index write-backs started and not yet finished").register(registry);
        FunctionCounter.builder("cachegate.semantic.index.evictions", evictions, LongSupplier::getAsLong)
                .description("Index entries evicted because the index was full").register(registry);
        FunctionCounter.builder("cachegate.semantic.embed.batches", batches, LongSupplier::getAsLong)
                .description("Model calls of the embedder").register(registry);
        FunctionCounter.builder("cachegate.semantic.embed.texts", texts, LongSupplier::getAsLong)
                .description("Texts embedded; divided by batches, the mean batch size").register(registry);
        Gauge.builder("cachegate.semantic.embed.queued", queued, LongSupplier::getAsLong)
                .description("Texts waiting for the embedder").register(registry);
        FunctionCounter.builder("cachegate.semantic.embed.rejected", rejected, LongSupplier::getAsLong)
                .description("Texts refused because the embedder's queue was full").register(registry);
    }

    /**
     * Exposes the evidence shared with the fleet, by event: {@code sent} to the Redis stream, {@code received} from
     * the other gateways, {@code dropped} (the send queue was full), {@code failed} (Redis refused a send),
     * {@code unreadable} (a record that is not evidence, skipped).
     */
    public void watchSharedEvidence(Map<String, LongSupplier> byEvent) {
        byEvent.forEach((event, count) -> {
            watched.add(count);
            FunctionCounter.builder("cachegate.semantic.evidence.shared", count, LongSupplier::getAsLong)
                    .description("Error-budget evidence shared with the other gateways through Redis, by event")
                    .tag("event", event).register(registry);
        });
    }

    private DistributionSummary similarity(String result) {
        return DistributionSummary.builder("cachegate.semantic.similarity")
                .description("Cosine similarity of semantic hits and of the best neighbour of near misses")
                .tag("result", result)
                .serviceLevelObjectives(SIMILARITY_BUCKETS)
                .register(registry);
    }

    private Timer latency(String name, String description) {
        return Timer.builder(name).description(description)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofNanos(50_000)).maximumExpectedValue(Duration.ofSeconds(2))
                .register(registry);
    }

    private Counter counter(String name, String description, String tag, String value) {
        return counters.computeIfAbsent(name + '|' + value, k -> {
            Counter.Builder b = Counter.builder(name).description(description);
            if (tag != null) {
                b.tag(tag, value);
            }
            return b.register(registry);
        });
    }
}
