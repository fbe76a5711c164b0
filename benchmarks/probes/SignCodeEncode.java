import java.util.*;
/**
 * Encoding a vector's signs into a code: the branch a component of {@code SignCodes} had (one bit set per positive
 * component) against its loop now (a word at a time, the test as 0 or 1); 20,000 random 384-dimension vectors, ns a
 * vector over the last rounds, and whether both give the same codes (zero, minus zero and NaN components included).
 * A probe, run from source and not compiled by the build (docs/benchmarks.md, fifteenth session).
 *
 * <pre>
 * java benchmarks/probes/SignCodeEncode.java
 * </pre>
 */
public class SignCodeEncode {
    static void encodeOld(float[] vector, long[] into, int at) {
        for (int i = 0; i < vector.length; i++) {
            if (vector[i] > 0) {
                into[at + (i >>> 6)] |= 1L << (i & 63);
            }
        }
    }
    static void encodeNew(float[] vector, long[] into, int at) {
        for (int base = 0, w = 0; base < vector.length; base += 64, w++) {
            int end = Math.min(base + 64, vector.length);
            long word = 0;
            for (int i = base; i < end; i++) {
                word |= (vector[i] > 0 ? 1L : 0L) << (i - base);
            }
            into[at + w] = word;
        }
    }
    public static void main(String[] a) {
        int n = 20000, d = 384, words = 6;
        SplittableRandom r = new SplittableRandom(1);
        float[][] v = new float[n][d];
        for (float[] x : v) for (int i = 0; i < d; i++) x[i] = (float) r.nextGaussian();
        v[0][5] = 0f; v[1][7] = -0f; v[2][9] = Float.NaN;
        long[] c1 = new long[n * words], c2 = new long[n * words];
        for (int round = 0; round < 12; round++) {
            Arrays.fill(c1, 0); Arrays.fill(c2, 0);
            long t0 = System.nanoTime();
            for (int k = 0; k < n; k++) encodeOld(v[k], c1, k * words);
            long t1 = System.nanoTime();
            for (int k = 0; k < n; k++) encodeNew(v[k], c2, k * words);
            long t2 = System.nanoTime();
            if (round >= 8) System.out.printf("old %.1f ns/vector, new %.1f ns/vector, equal %b%n", (t1 - t0) / (double) n, (t2 - t1) / (double) n, Arrays.equals(c1, c2));
        }
    }
}
