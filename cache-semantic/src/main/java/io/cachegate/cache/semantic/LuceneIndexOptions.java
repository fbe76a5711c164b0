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
 * @param refreshInterval the shortest time between two refreshes of the searcher: a delete or purge waits at most
 *     about this long to take effect (refreshes are coalesced within it), an add only when recent entries are full
 * @param commitInterval how often changes are made durable (a crash loses at most this much)
 * @param exactSearchLimit a segment where the scope filter leaves at most this many entries is searched without its
 *     HNSW graph: by comparing every vector when they are few, else by scanning their sign codes and comparing the
 *     vectors of the nearest by code ({@link ScopeSearch}); beyond it, through the graph, faster for a huge scope but
 *     missing near entries that the scan finds. {@link #NO_GRAPHS} (the default) writes no graph at all, so adds
 *     and merges do not build one, and every scope is scanned; 0 always searches the graph
 * @param recentCapacity entries added since the last refresh that are searched by comparing every vector, so an add
 *     is searchable at once without a refresh; 0 turns this off (every add waits for a refresh). About 1.7 KB each
 *     at 384 dimensions plus the text
 * @param recentRefreshInterval how long added entries may stay recent before a refresh moves them into the
 *     searcher (sooner once half the capacity is used): each refresh flushes a Lucene segment
 */
public record LuceneIndexOptions(Path directory, String modelId, int dimension, long maxEntries, int threads,
                                 int queueCapacity, Duration refreshInterval, Duration commitInterval,
                                 int exactSearchLimit, int recentCapacity, Duration recentRefreshInterval) {

    /**
     * The exact search limit that writes no HNSW graph: every scope is scanned however large. A scan of a million
     * codes takes a few milliseconds, and the default index holds a million entries in all.
     */
    public static final int NO_GRAPHS = Integer.MAX_VALUE;
    /** Scanned in about 0.1 ms when all in one scope; at 100 writes/s, half of it lasts 5 s. */
    static final int DEFAULT_RECENT_CAPACITY = 1024;

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
        if (recentCapacity < 0 || recentCapacity > 65_536) {
            throw new IllegalArgumentException("recentCapacity must be in 0..65536, was " + recentCapacity);
        }
        requirePositive(recentRefreshInterval, "recentRefreshInterval");
    }

    public static LuceneIndexOptions of(Path directory, String modelId, int dimension) {
        return new LuceneIndexOptions(directory, modelId, dimension, 1_000_000,
                Math.max(2, Runtime.getRuntime().availableProcessors() / 2), 1024,
                Duration.ofMillis(10), Duration.ofSeconds(5), NO_GRAPHS, DEFAULT_RECENT_CAPACITY,
                Duration.ofSeconds(1));
    }

    /** True when segments are written with an HNSW graph: only then may a search walk one. */
    public boolean graphs() {
        return exactSearchLimit != NO_GRAPHS;
    }

    public LuceneIndexOptions withMaxEntries(long value) {
        return new LuceneIndexOptions(directory, modelId, dimension, value, threads, queueCapacity, refreshInterval, commitInterval, exactSearchLimit, recentCapacity, recentRefreshInterval);
    }

    public LuceneIndexOptions withThreads(int value) {
        return new LuceneIndexOptions(directory, modelId, dimension, maxEntries, value, queueCapacity, refreshInterval, commitInterval, exactSearchLimit, recentCapacity, recentRefreshInterval);
    }

    public LuceneIndexOptions withQueueCapacity(int value) {
        return new LuceneIndexOptions(directory, modelId, dimension, maxEntries, threads, value, refreshInterval, commitInterval, exactSearchLimit, recentCapacity, recentRefreshInterval);
    }

    public LuceneIndexOptions withRefreshInterval(Duration value) {
        return new LuceneIndexOptions(directory, modelId, dimension, maxEntries, threads, queueCapacity, value, commitInterval, exactSearchLimit, recentCapacity, recentRefreshInterval);
    }

    public LuceneIndexOptions withCommitInterval(Duration value) {
        return new LuceneIndexOptions(directory, modelId, dimension, maxEntries, threads, queueCapacity, refreshInterval, value, exactSearchLimit, recentCapacity, recentRefreshInterval);
    }

    public LuceneIndexOptions withExactSearchLimit(int value) {
        return new LuceneIndexOptions(directory, modelId, dimension, maxEntries, threads, queueCapacity, refreshInterval, commitInterval, value, recentCapacity, recentRefreshInterval);
    }

    public LuceneIndexOptions withRecentCapacity(int value) {
        return new LuceneIndexOptions(directory, modelId, dimension, maxEntries, threads, queueCapacity, refreshInterval, commitInterval, exactSearchLimit, value, recentRefreshInterval);
    }

    public LuceneIndexOptions withRecentRefreshInterval(Duration value) {
        return new LuceneIndexOptions(directory, modelId, dimension, maxEntries, threads, queueCapacity, refreshInterval, commitInterval, exactSearchLimit, recentCapacity, value);
    }

    private static void requirePositive(Duration value, String name) {
        if (value == null || value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
    }
}
