package io.cachegate.cache.semantic;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Search latency of the embedded index: 100,000 random unit vectors of dimension 384 across 100 scopes, then
 * 2,000 scope-filtered top-5 searches, timed one at a time through the public async API (hand-off to the
 * index thread included), once just after loading and once after a reopen (merges settled). A probe, not a
 * test: run it by hand with the module's test class path (see the module notes). Arguments: entries,
 * scopes, queries.
 */
public final class LuceneSearchProbe {

    private LuceneSearchProbe() {
    }

    private static void measure(String label, LuceneVectorIndex index, Random random, int scopes, int queries,
                                int dimension, long now) {
        for (int i = 0; i < 500; i++) {  // warm-up: JIT and page cache
            index.search("scope-" + random.nextInt(scopes), TestVectors.random(random, dimension), 5, now).join();
        }
        long[] nanos = new long[queries];
        int found = 0;
        for (int i = 0; i < queries; i++) {
            float[] q = TestVectors.random(random, dimension);
            String scope = "scope-" + random.nextInt(scopes);
            long start = System.nanoTime();
            found += index.search(scope, q, 5, now).join().size();
            nanos[i] = System.nanoTime() - start;
        }
        Arrays.sort(nanos);
        System.out.printf("%s: search k=5 filtered by scope, %d queries: p50 %.3f ms, p99 %.3f ms, max %.3f ms (%d results)%n",
                label, queries, nanos[queries / 2] / 1e6, nanos[(int) (queries * 0.99)] / 1e6, nanos[queries - 1] / 1e6, found);
    }

    public static void main(String[] args) throws Exception {
        int entries = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int scopes = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        int queries = args.length > 2 ? Integer.parseInt(args[2]) : 2_000;
        int dimension = 384;
        long now = System.currentTimeMillis();
        Path dir = Files.createTempDirectory("cachegate-lucene-probe");
        Random random = new Random(42);
        try (LuceneVectorIndex index = LuceneVectorIndex.open(LuceneIndexOptions.of(dir, "probe-model", dimension)
                .withMaxEntries(entries * 2L))) {
            long loadStart = System.nanoTime();
            List<CompletableFuture<Void>> inFlight = new ArrayList<>();
            for (int i = 0; i < entries; i++) {
                inFlight.add(index.add(new IndexEntry("key-" + i, "scope-" + (i % scopes), "t", "m", Set.of(),
                        TestVectors.random(random, dimension), "text " + i, now, now + 86_400_000L)));
                if (inFlight.size() == 512) {  // stay under the index's queue bound
                    CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).join();
                    inFlight.clear();
                }
            }
            CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).join();
            double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
            System.out.printf("loaded %d entries (%d scopes, dim %d) in %.1f s (%.0f adds/s); size %d%n",
                    entries, scopes, dimension, loadSeconds, entries / loadSeconds, index.size().join());

            measure("just after loading (background merges still running)", index, random, scopes, queries, dimension, now);
        }
        // Closing waits for merges; reopening measures the settled index a restarted gateway would serve from.
        try (LuceneVectorIndex index = LuceneVectorIndex.open(LuceneIndexOptions.of(dir, "probe-model", dimension)
                .withMaxEntries(entries * 2L))) {
            try (var fs = org.apache.lucene.store.FSDirectory.open(dir)) {
                System.out.printf("after reopen: %d segments%n", org.apache.lucene.index.SegmentInfos.readLatestCommit(fs).size());
            }
            measure("after merges settled (reopened)", index, random, scopes, queries, dimension, now);
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
