import io.cachegate.cache.semantic.IndexEntry;
import io.cachegate.cache.semantic.LuceneIndexOptions;
import io.cachegate.cache.semantic.LuceneVectorIndex;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The search-and-write mix of {@code bench semantic --part search} on an index kept by it, for as long as asked,
 * with what the bench's phases cannot show: every 2 s the index directory's segments and size (a merge shows as the
 * size growing, then falling), the process's CPU in cores, how many searches took over 2 ms, and the minor page faults
 * (Linux: first reads of mapped pages). Random unit vectors in 100 scopes, searched one at a time, an add after every
 * 10 (docs/benchmarks.md, fifteenth and sixteenth sessions).
 * A probe, run from source and not compiled by the build. It writes to the index: run it on a copy.
 *
 * <pre>
 * cp -r DIR/index-1000000-in-100 /tmp/copy
 * java -Xmx8g --add-modules jdk.incubator.vector -Dorg.apache.lucene.vectorization.upperJavaFeatureVersion=25 \
 *   -cp cli/target/cachegate.jar benchmarks/probes/SearchWriteMix.java /tmp/copy 20
 * </pre>
 */
public class SearchWriteMix {
    private static final int DIMENSION = 384;
    private static final int SCOPES = 100;
    private static final long SLOW_NANOS = 2_000_000;

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        long seconds = Long.parseLong(args[1]);
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        // The model id the bench's index was built under: another one would have the index recreated, empty.
        LuceneIndexOptions options = LuceneIndexOptions.of(dir, "bench-random-" + DIMENSION, DIMENSION)
                .withMaxEntries(3_000_000L);
        SplittableRandom random = new SplittableRandom(7);
        long now = System.currentTimeMillis();
        try (LuceneVectorIndex index = LuceneVectorIndex.open(options)) {
            index.size().join();
            long start = System.nanoTime();
            long nextReport = start + 2_000_000_000L;
            long cpu = os.getProcessCpuTime();
            long faults = minorFaults();
            long searches = 0;
            long slow = 0;
            for (int i = 1; System.nanoTime() - start < seconds * 1_000_000_000L; i++) {
                if (i % 10 == 0) {
                    index.add(new IndexEntry("mix-" + i, "scope-" + random.nextInt(SCOPES), "t", "m", Set.of(),
                            unit(random), "mix " + i, now + i, now + 86_400_000L));
                }
                long began = System.nanoTime();
                index.search("scope-" + random.nextInt(SCOPES), unit(random), 10, now + i).join();
                searches++;
                slow += System.nanoTime() - began > SLOW_NANOS ? 1 : 0;
                if (System.nanoTime() > nextReport) {
                    long cpuNow = os.getProcessCpuTime();
                    long faultsNow = minorFaults();
                    long[] segments = segments(dir);
                    System.out.printf("t=%5.1fs segments=%d MB=%d cores=%.2f searches=%d over2ms=%d minorfaults=%d%n",
                            (System.nanoTime() - start) / 1e9, segments[0], segments[1] >> 20,
                            (cpuNow - cpu) / 2e9, searches, slow, faultsNow - faults);
                    cpu = cpuNow;
                    faults = faultsNow;
                    searches = 0;
                    slow = 0;
                    nextReport += 2_000_000_000L;
                }
            }
        }
    }

    /** The process's minor page faults so far (Linux): a first read of a memory-mapped page not yet mapped. */
    private static long minorFaults() throws java.io.IOException {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[7]);
    }

    /** The directory's segment count and bytes (a file may vanish while listed: a merge's inputs). */
    private static long[] segments(Path dir) {
        long count = 0;
        long bytes = 0;
        try (var files = Files.list(dir)) {
            for (Path p : files.toList()) {
                count += p.toString().endsWith(".si") ? 1 : 0;
                try {
                    bytes += Files.size(p);
                } catch (java.io.IOException gone) {
                    // merged away between the listing and the size
                }
            }
        } catch (java.io.IOException e) {
            return new long[] {-1, -1};
        }
        return new long[] {count, bytes};
    }

    private static float[] unit(SplittableRandom random) {
        float[] v = new float[DIMENSION];
        double norm = 0;
        for (int i = 0; i < DIMENSION; i++) {
            v[i] = (float) random.nextGaussian();
            norm += v[i] * v[i];
        }
        float scale = (float) (1 / Math.sqrt(norm));
        for (int i = 0; i < DIMENSION; i++) {
            v[i] *= scale;
        }
        return v;
    }
}
