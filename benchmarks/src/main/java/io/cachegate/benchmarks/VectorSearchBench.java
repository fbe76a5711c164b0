package io.cachegate.benchmarks;

import io.cachegate.cache.semantic.IndexEntry;
import io.cachegate.cache.semantic.LuceneIndexOptions;
import io.cachegate.cache.semantic.LuceneVectorIndex;
import io.cachegate.cache.semantic.Neighbour;
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
 * Part 3 of {@code bench semantic}: the embedded index's search latency. Loads unit vectors of the bundled model's
 * dimension ({@link BenchVectors}: random or clustered) into a fresh {@link LuceneVectorIndex} (in {@code scopes}
 * scopes), closes it and
 * opens it again (merges settled, as a restarted gateway would serve from), then times scope-filtered top-k
 * searches one at a time through the public asynchronous API, hand-off to the index thread included: first
 * searches alone, then with an add after every {@code writeEvery} searches (not awaited, as the gateway writes back
 * after its misses; warmed up on the same mix for {@link #WRITE_WARMUP}), so the tail after writes (refreshes, new
 * segments, merges) is measured too.
 * Two kinds of query: {@code random} ones, drawn like the stored vectors but near none of them (a miss), and
 * {@code near} ones, each a stored entry moved to cosine
 * {@link #NEAR_COSINE} of it, as a paraphrase of a cached prompt is (the case a cache hit is made of); for those the
 * result says how often that entry was among the k found.
 */
final class VectorSearchBench {

    static final int DIMENSION = 384;
    /** A near query's cosine to the entry it was made from: about a paraphrase's under bge-small. */
    static final double NEAR_COSINE = 0.93;
    static final List<String> QUERY_KINDS = List.of("random", "near");
    /** Stored entries a near query may start from, sampled evenly while loading. */
    private static final int NEAR_SAMPLE = 2_000;
    private static final long DAY_MILLIS = 86_400_000L;
    /**
     * Warm-up with writes: ten of the index's default refresh intervals for entries added (1 s). A process's first
     * seconds of writes run slow (the fourteenth session logged the JIT's deoptimisations at the first refreshes):
     * at a million entries, 3 s left them in every run's first write phase (p99 2.9-4.6 ms; after 10 s, 0.8-2.0
     * ms, with the merge those writes set off still running: docs/benchmarks.md, sixteenth session).
     */
    static final Duration WRITE_WARMUP = Duration.ofSeconds(10);
    private static final Progress PROGRESS = new Progress("semantic search");

    /**
     * One variant's figures; {@code writeEvery} 0 for searches alone; {@code foundNear} the share of near queries
     * whose entry was among the results (NaN for random ones); {@code cpuMsPerSearch} the process's CPU time over
     * the timed searches divided by their number (NaN where the JVM cannot tell): unlike the latencies, it hardly
     * moves with what else the machine runs, so it compares two builds on a loaded machine.
     */
    record Result(String label, String vectors, String queryKind, int entries, int scopes, int k, double loadSeconds, int writeEvery,
                  int queries, double p50Ms, double p99Ms, double p999Ms, double maxMs, double meanResults,
                  double foundNear, double cpuMsPerSearch) {
    }

    /** A stored entry a near query is made from. */
    private record Stored(String key, int scope, float[] vector) {
    }

    private final int entries;
    private final int queries;
    private final int k;
    private final int writeEvery;
    private final Duration writeWarmup;
    private final Path keep;
    private final List<String> kinds;
    private final BenchVectors vectors;
    private final List<Stored> sample = new ArrayList<>();

    /**
     * {@code writeEvery} 0: searches alone only. {@code keep}, when not null, holds a copy of each loaded index,
     * which later runs copy instead of loading again (loading 100,000 entries takes minutes), so two builds of the
     * index can be measured on the same segments.
     */
    VectorSearchBench(int entries, int queries, int k, int writeEvery, Path keep, List<String> kinds,
                      BenchVectors vectors) {
        this(entries, queries, k, writeEvery, WRITE_WARMUP, keep, kinds, vectors);
    }

    /** As above, warmed up with writes for {@code writeWarmup} at least (tests: less). */
    VectorSearchBench(int entries, int queries, int k, int writeEvery, Duration writeWarmup, Path keep,
                      List<String> kinds, BenchVectors vectors) {
        this.entries = entries;
        this.queries = queries;
        this.k = k;
        this.writeEvery = writeEvery;
        this.writeWarmup = writeWarmup;
        this.keep = keep;
        this.kinds = List.copyOf(kinds);
        this.vectors = vectors;
    }

    /** Per query kind, searches alone, then (unless {@code writeEvery} is 0) with writes, on the same index. */
    List<Result> run(String label, int scopes) throws IOException {
        sample.clear();
        Path dir = Files.createTempDirectory("cachegate-bench-search");
        long now = System.currentTimeMillis();
        SplittableRandom random = new SplittableRandom(42);
        LuceneIndexOptions options = LuceneIndexOptions.of(dir, "bench-random-" + DIMENSION, DIMENSION)
                .withMaxEntries(entries + 1_000_000L);  // room for every write of a run: nothing measured is evicted
        try {
            Path kept = keep == null ? null : keep.resolve("index-" + entries + "-in-" + scopes
                    + ("random".equals(vectors.kind()) ? "" : "-" + vectors.kind()));
            double loadSeconds = kept != null && Files.isDirectory(kept) ? copy(kept, dir, scopes, random, label)
                    : load(options, label, scopes, random, now);
            if (kept != null && !Files.isDirectory(kept)) {
                copyTree(dir, kept);
            }
            long opening = System.nanoTime();
            try (LuceneVectorIndex index = LuceneVectorIndex.open(options)) {
                index.size().join();  // the first searcher: every segment's facts read
                PROGRESS.info("%s: opened in %.1f s", label, (System.nanoTime() - opening) / 1e9);
                List<Result> results = new ArrayList<>();
                for (String kind : kinds) {
                    results.add(measure(label, kind, index, scopes, loadSeconds, 0, random, now));
                    if (writeEvery > 0) {
                        results.add(measure(label + " + writes", kind, index, scopes, loadSeconds, writeEvery, random, now));
                    }
                }
                return results;
            }
        } finally {
            deleteTree(dir);
        }
    }

    /** A kept index instead of loading; the vectors a load would draw are drawn, so the queries are the same. */
    private double copy(Path kept, Path dir, int scopes, SplittableRandom random, String label) throws IOException {
        for (int i = 0; i < entries; i++) {
            keepForNear(i, scopes, vectors.next(random, DIMENSION));
        }
        copyTree(kept, dir);
        PROGRESS.info("%s: copied the index loaded earlier from %s", label, kept);
        return Double.NaN;
    }

    private double load(LuceneIndexOptions options, String label, int scopes, SplittableRandom random, long now)
            throws IOException {
        // Loading only: every add queued at once and refreshed every 5 s, so the load flushes a few large
        // segments instead of one per refresh interval (which made the load merge HNSW graphs for minutes, when
        // segments had them).
        LuceneIndexOptions bulk = options.withQueueCapacity(entries + 1).withRefreshInterval(Duration.ofSeconds(5))
                .withRecentCapacity(0);
        LuceneVectorIndex index = LuceneVectorIndex.open(bulk);
        try {
            long start = System.nanoTime();
            List<CompletableFuture<Void>> adds = new ArrayList<>(entries);
            for (int i = 0; i < entries; i++) {
                float[] vector = vectors.next(random, DIMENSION);
                keepForNear(i, scopes, vector);
                adds.add(index.add(new IndexEntry("key-" + i, scope(i % scopes), "t", "m", Set.of(),
                        vector, "text " + i, now, now + DAY_MILLIS)));
            }
            CompletableFuture.allOf(adds.toArray(CompletableFuture[]::new)).join();
            double loadSeconds = (System.nanoTime() - start) / 1e9;
            PROGRESS.info("%s: loaded %d entries in %d scope(s) in %.1f s; closing (waits for merges)", label, entries,
                    scopes, loadSeconds);
            return loadSeconds;
        } finally {
            long closing = System.nanoTime();
            index.close();
            PROGRESS.info("%s: closed in %.1f s", label, (System.nanoTime() - closing) / 1e9);
        }
    }

    private void keepForNear(int i, int scopes, float[] vector) {
        if (i % Math.max(1, entries / NEAR_SAMPLE) == 0) {
            sample.add(new Stored("key-" + i, i % scopes, vector));
        }
    }

    // Each search at its own instant, as the gateway's: a filter holding one fixed instant is not what it runs.
    private Result measure(String label, String kind, LuceneVectorIndex index, int scopes, double loadSeconds,
                           int writeEvery, SplittableRandom random, long now) {
        long[] clock = {now};
        boolean near = "near".equals(kind);
        // JIT and page cache; with writes, the same mix for a few of the index's refreshes, so the refreshes and small
        // merges a gateway that writes goes through all day are not measured as the first the JIT has seen.
        long warmUntil = System.nanoTime() + (writeEvery > 0 ? writeWarmup.toNanos() : 0);
        for (int i = 0; i < Math.max(500, queries / 4) || System.nanoTime() - warmUntil < 0; i++) {
            if (writeEvery > 0 && i % writeEvery == writeEvery - 1) {
                long created = ++clock[0];
                index.add(new IndexEntry("warm-" + label + "-" + kind + "-" + i, scope(random.nextInt(scopes)), "t", "m",
                        Set.of(), vectors.next(random, DIMENSION), "warm " + i, created, created + DAY_MILLIS));
            }
            index.search(scope(random.nextInt(scopes)), vectors.next(random, DIMENSION), k, ++clock[0]).join();
        }
        long[] nanos = new long[queries];
        long found = 0;
        int foundNear = 0;
        long cpuStart = ProcessCpu.nanos();
        for (int i = 0; i < queries; i++) {
            if (writeEvery > 0 && i % writeEvery == writeEvery - 1) {
                long created = ++clock[0];
                index.add(new IndexEntry("written-" + label + "-" + i, scope(random.nextInt(scopes)), "t", "m", Set.of(),
                        vectors.next(random, DIMENSION), "written " + i, created, created + DAY_MILLIS));
            }
            Stored from = near ? sample.get(random.nextInt(sample.size())) : null;
            float[] query = near ? nearTo(from.vector(), random) : vectors.next(random, DIMENSION);
            String scope = scope(near ? from.scope() : random.nextInt(scopes));
            long start = System.nanoTime();
            List<Neighbour> results = index.search(scope, query, k, ++clock[0]).join();
            nanos[i] = System.nanoTime() - start;
            found += results.size();
            if (near && results.stream().anyMatch(n -> n.entryKey().equals(from.key()))) {
                foundNear++;
            }
        }
        long cpuEnd = ProcessCpu.nanos();
        Arrays.sort(nanos);
        Result r = new Result(label, vectors.kind(), kind, entries, scopes, k, loadSeconds, writeEvery, queries,
                nanos[queries / 2] / 1e6, quantile(nanos, 0.99), quantile(nanos, 0.999), nanos[queries - 1] / 1e6,
                (double) found / queries, near ? (double) foundNear / queries : Double.NaN,
                cpuStart < 0 || cpuEnd < 0 ? Double.NaN : (cpuEnd - cpuStart) / 1e6 / queries);
        PROGRESS.info("%s, %s vectors, %s queries: %d searches, k=%d%s: p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, max %.3f ms, "
                + "CPU %.3f ms a search%s", label, vectors.kind(), kind, queries, k, writeEvery > 0 ? ", an add every " + writeEvery : "",
                r.p50Ms(), r.p99Ms(), r.p999Ms(), r.maxMs(), r.cpuMsPerSearch(),
                near ? String.format(", the entry found in %.1f%%", 100 * r.foundNear()) : "");
        return r;
    }

    /** {@code v} (a unit vector) turned by a random direction to cosine {@link #NEAR_COSINE}. */
    static float[] nearTo(float[] v, SplittableRandom random) {
        float[] noise = unitVector(random);
        double along = 0;
        for (int i = 0; i < v.length; i++) {
            along += noise[i] * v[i];
        }
        double norm = 0;
        for (int i = 0; i < v.length; i++) {  // the part of the noise orthogonal to v
            noise[i] -= (float) (along * v[i]);
            norm += noise[i] * noise[i];
        }
        double sin = Math.sqrt(1 - NEAR_COSINE * NEAR_COSINE) / Math.sqrt(norm);
        float[] q = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            q[i] = (float) (NEAR_COSINE * v[i] + sin * noise[i]);
        }
        return q;
    }

    /** The nearest-rank quantile of sorted {@code nanos}, in milliseconds. */
    static double quantile(long[] nanos, double q) {
        return nanos[(int) Math.min(nanos.length - 1, Math.max(0, Math.ceil(nanos.length * q) - 1))] / 1e6;
    }

    private static String scope(int i) {
        return "scope-" + i;
    }

    static float[] unitVector(SplittableRandom random) {
        return BenchVectors.unit(random, DIMENSION);
    }

    private static void copyTree(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : files.toList()) {
                Files.copy(f, to.resolve(f.getFileName().toString()));
            }
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
