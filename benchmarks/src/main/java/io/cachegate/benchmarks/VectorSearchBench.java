package io.cachegate.benchmarks;

import io.cachegate.cache.semantic.IndexEntry;
import io.cachegate.cache.semantic.LuceneIndexOptions;
import io.cachegate.cache.semantic.LuceneVectorIndex;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/**
 * Part 3 of {@code bench semantic}: the embedded index's search latency. Loads random unit vectors of the
 * bundled model's dimension into a fresh {@link LuceneVectorIndex} (in {@code scopes} scopes), closes it and
 * opens it again (merges settled, as a restarted gateway would serve from), then times scope-filtered top-k
 * searches one at a time through the public asynchronous API, hand-off to the index thread included.
 * Random vectors are the hard case for HNSW: real embeddings cluster.
 */
final class VectorSearchBench {

    static final int DIMENSION = 384;
    private static final long DAY_MILLIS = 86_400_000L;
    private static final Progress PROGRESS = new Progress("semantic search");

    /** One variant's figures. */
    record Result(String label, int entries, int scopes, int k, double loadSeconds, int queries, double p50Ms,
                  double p99Ms, double maxMs, double meanResults) {
    }

    private final int entries;
    private final int queries;
    private final int k;

    VectorSearchBench(int entries, int queries, int k) {
        this.entries = entries;
        this.queries = queries;
        this.k = k;
    }

    Result run(String label, int scopes) throws IOException {
        Path dir = Files.createTempDirectory("cachegate-bench-search");
        long now = System.currentTimeMillis();
        SplittableRandom random = new SplittableRandom(42);
        LuceneIndexOptions options = LuceneIndexOptions.of(dir, "bench-random-" + DIMENSION, DIMENSION)
                .withMaxEntries(entries * 2L);
        try {
            double loadSeconds;
            // Loading only: every add queued at once and refreshed every 5 s, so the load flushes a few large
            // segments instead of one per refresh interval (which makes the load merge HNSW graphs for minutes).
            LuceneIndexOptions bulk = options.withQueueCapacity(entries + 1).withRefreshInterval(Duration.ofSeconds(5));
            try (LuceneVectorIndex index = LuceneVectorIndex.open(bulk)) {
                long start = System.nanoTime();
                List<CompletableFuture<Void>> adds = new ArrayList<>(entries);
                for (int i = 0; i < entries; i++) {
                    adds.add(index.add(new IndexEntry("key-" + i, scope(i % scopes), "t", "m", Set.of(),
                            unitVector(random), "text " + i, now, now + DAY_MILLIS)));
                }
                CompletableFuture.allOf(adds.toArray(CompletableFuture[]::new)).join();
                loadSeconds = (System.nanoTime() - start) / 1e9;
                PROGRESS.info("%s: loaded %d entries in %d scope(s) in %.1f s; closing (waits for merges)", label, entries,
                        scopes, loadSeconds);
            }
            try (LuceneVectorIndex index = LuceneVectorIndex.open(options)) {
                return measure(label, index, scopes, loadSeconds, random, now);
            }
        } finally {
            deleteTree(dir);
        }
    }

    private Result measure(String label, LuceneVectorIndex index, int scopes, double loadSeconds,
                           SplittableRandom random, long now) {
        for (int i = 0; i < Math.max(500, queries / 4); i++) {  // JIT and page cache
            index.search(scope(random.nextInt(scopes)), unitVector(random), k, now).join();
        }
        long[] nanos = new long[queries];
        long found = 0;
        for (int i = 0; i < queries; i++) {
            float[] query = unitVector(random);
            String scope = scope(random.nextInt(scopes));
            long start = System.nanoTime();
            found += index.search(scope, query, k, now).join().size();
            nanos[i] = System.nanoTime() - start;
        }
        Arrays.sort(nanos);
        Result r = new Result(label, entries, scopes, k, loadSeconds, queries, nanos[queries / 2] / 1e6,
                nanos[(int) Math.min(queries - 1, Math.ceil(queries * 0.99) - 1)] / 1e6, nanos[queries - 1] / 1e6,
                (double) found / queries);
        PROGRESS.info("%s: %d searches, k=%d: p50 %.3f ms, p99 %.3f ms, max %.3f ms", label, queries, k, r.p50Ms(), r.p99Ms(),
                r.maxMs());
        return r;
    }

    private static String scope(int i) {
        return "scope-" + i;
    }

    static float[] unitVector(SplittableRandom random) {
        float[] v = new float[DIMENSION];
        double norm = 0;
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) (random.nextDouble() * 2 - 1);
            norm += v[i] * v[i];
        }
        float scale = (float) (1 / Math.sqrt(norm));
        for (int i = 0; i < v.length; i++) {
            v[i] *= scale;
        }
        return v;
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
