import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.lucene.codecs.lucene95.OffHeapFloatVectorValues;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.RandomAccessInput;

/**
 * What the rescoring of a search costs when its vectors are read from the memory-mapped index: 80 documents drawn at
 * random from an index kept by {@code bench semantic --part search}, their vectors read and compared with a query
 * as {@code ScopeSearch.rescore} does, in three ways taking turns: as they come (cold), the same 80 read a second
 * time (hot: what is left is the reading's own cost), and after touching the first word of each vector of a segment
 * (the misses overlapped). Reads only. A probe, run from source and not compiled by the build (docs/benchmarks.md,
 * sixteenth session).
 *
 * <pre>
 * java --add-modules jdk.incubator.vector -Dorg.apache.lucene.vectorization.upperJavaFeatureVersion=25 \
 *   -cp cli/target/cachegate.jar benchmarks/probes/VectorReadLatency.java DIR/index-1000000-in-100
 * </pre>
 */
public class VectorReadLatency {
    private static final int DIMENSION = 384;
    private static final int RESCORED = 80;
    private static final int SEARCHES = 3000;
    private static final String[] WAYS = {"cold", "hot", "touched first"};

    public static void main(String[] args) throws Exception {
        try (var directory = FSDirectory.open(Path.of(args[0])); var reader = DirectoryReader.open(directory)) {
            List<LeafReaderContext> leaves = reader.leaves();
            SplittableRandom random = new SplittableRandom(3);
            float[] query = new float[DIMENSION];
            for (int i = 0; i < DIMENSION; i++) {
                query[i] = (float) random.nextGaussian();
            }
            double sink = 0;
            for (int round = 0; round < 10; round++) {
                StringBuilder line = new StringBuilder("round " + round + ":");
                for (int way = 0; way < WAYS.length; way++) {
                    long nanos = 0;
                    for (int s = 0; s < SEARCHES; s++) {
                        int[] docs = new int[RESCORED];
                        for (int i = 0; i < RESCORED; i++) {
                            docs[i] = random.nextInt(reader.maxDoc());
                        }
                        Arrays.sort(docs);
                        if (way == 1) {
                            sink += compare(leaves, docs, query, false);
                        }
                        long start = System.nanoTime();
                        sink += compare(leaves, docs, query, way == 2);
                        nanos += System.nanoTime() - start;
                    }
                    line.append(String.format(" %s %.1f us", WAYS[way], nanos / 1e3 / SEARCHES));
                }
                System.out.println(line + " for " + RESCORED + " vectors");
            }
            System.out.println(sink == 42 ? "" : "done");
        }
    }

    private static double compare(List<LeafReaderContext> leaves, int[] docs, float[] query, boolean touch)
            throws Exception {
        double sum = 0;
        int i = 0;
        while (i < docs.length) {
            LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(docs[i], leaves));
            FloatVectorValues vectors = leaf.reader().getFloatVectorValues("vector");
            int end = leaf.docBase + leaf.reader().maxDoc();
            if (touch && vectors instanceof OffHeapFloatVectorValues offHeap
                    && offHeap.getSlice() instanceof RandomAccessInput input) {
                for (int j = i; j < docs.length && docs[j] < end; j++) {
                    sum += input.readLong((long) (docs[j] - leaf.docBase) * DIMENSION * Float.BYTES) == 42 ? 1 : 0;
                }
            }
            for (; i < docs.length && docs[i] < end; i++) {
                int doc = docs[i] - leaf.docBase;
                if (vectors.docID() < doc && vectors.advance(doc) != doc) {
                    continue;
                }
                sum += VectorSimilarityFunction.DOT_PRODUCT.compare(query, vectors.vectorValue());
            }
        }
        return sum;
    }
}
