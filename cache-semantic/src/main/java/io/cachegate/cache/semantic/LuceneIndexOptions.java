package io.cachegate.cache.semantic;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the embedded index. {@link #of(Path, String, int)} gives the defaults; the {@code with…}
 * methods return changed copies, validated like the constructor.
 *
 * @param directory where the index lives on disk (created when missing)
 * @param modelId the embedding model; an index built by another model is recreated
 * @param dimension the model's vector dimension
 * @param maxEntries beyond this many entries the oldest (by creation time) are evicted
 * @param threads threads for searches and writes
 * @param queueCapacity calls waiting for a thread; beyond it calls fail at once (a semantic miss)
 * @param refreshInterval the longest a write waits to become searchable; refreshes are coalesced within it
 * @param commitInterval how often changes are made durable (a crash loses at most this much)
 * @param exactSearchLimit a segment where the scope filter leaves at most this many entries is searched exactly
 *     (every vector compared) instead of through its HNSW graph: a graph search for one small scope among many
 *     visits more nodes than the scope holds and then falls back to the exact search anyway
 */
public record LuceneIndexOptions(Path directory, String modelId, int dimension, long maxEntries, int threads,
                                 int queueCapacity, Duration refreshInterval, Duration commitInterval,
                                 int exactSearchLimit) {

    /** Exact search over this many 384-dimension vectors takes about as long as a graph search that succeeds. */
    static final int DEFAULT_EXACT_SEARCH_LIMIT = 4096;

    public LuceneIndexOptions {
        Objects.requireNonNull(directory, "directory");
        if (modelId == null || modelId.isEmpty()) {
            throw new IllegalArgumentException("modelId must not be empty");
        }
        if (dimension <= 0 || dimension > 4096) {
            throw new IllegalArgumentException("dimension must be in 1..4096, was " + dimension);
        }
        if (maxEntries <= 0) {
            throw new IllegalArgumentException("maxEntries must be positive, was " + maxEntries);
        }
        if (threads <= 0) {
            throw new IllegalArgumentException("threads must be positive, was " + threads);
        }
        if (queueCapacity <= 0) {
            throw new IllegalArgumentException("queueCapacity must be positive, was " + queueCapacity);
        }
        requirePositive(refreshInterval, "refreshInterval");
        requirePositive(commitInterval, "commitInterval");
        if (exactSearchLimit < 0) {
            throw new IllegalArgumentException("exactSearchLimit must not be negative, was " + exactSearchLimit);
        }
    }

    public static LuceneIndexOptions of(Path directory, String modelId, int dimension) {
        return new LuceneIndexOptions(directory, modelId, dimension, 1_000_000,
                Math.max(2, Runtime.getRuntime().availableProcessors() / 2), 1024,
                Duration.ofMillis(10), Duration.ofSeconds(5), DEFAULT_EXACT_SEARCH_LIMIT);
    }

    public LuceneIndexOptions withMaxEntries(long value) {
        return new LuceneIndexOptions(directory, modelId, dimension, value, threads, queueCapacity, refreshInterval, commitInterval, exactSearchLimit);
    }

    public LuceneIndexOptions withThreads(int value) {
        return new LuceneIndexOptions(directory, modelId, dimension, maxEntries, value, queueCapacity, refreshInterval, commitInterval, exactSearchLimit);
    }

    public LuceneIndexOptions withQueueCapacity(int value) {
        return new LuceneIndexOptions(directory, modelId, dimension, maxEntries, threads, value, refreshInterval, commitInterval, exactSearchLimit);
    }

    public LuceneIndexOptions withRefreshInterval(Duration value) {
        return new LuceneIndexOptions(directory, modelId, dimension, maxEntries, threads, queueCapacity, value, commitInterval, exactSearchLimit);
    }

    public LuceneIndexOptions withCommitInterval(Duration value) {
        return new LuceneIndexOptions(directory, modelId, dimension, maxEntries, threads, queueCapacity, refreshInterval, value, exactSearchLimit);
    }

    public LuceneIndexOptions withExactSearchLimit(int value) {
        return new LuceneIndexOptions(directory, modelId, dimension, maxEntries, threads, queueCapacity, refreshInterval,
                commitInterval, value);
    }

    private static void requirePositive(Duration value, String name) {
        if (value == null || value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
    }
}
