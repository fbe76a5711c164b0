import java.util.*;

/**
 * The scan of sign codes that ScopeSearch runs, as a micro-benchmark: 100,000 random 384-bit codes, the 80 nearest to
 * each of 200 queries; "general" is SignCodes' loop over words with a call per entry (the code before the eighth
 * session), "sixWords" the loop of SignCodes.nearest for six-word codes, "halfCodes" the first 192 bits of each code in
 * an array of their own, keeping 320 (tried, not kept). Thread CPU a scan, rounds 2-5 (docs/benchmarks.md, eighth
 * session). {@code java benchmarks/probes/SignCodeScan.java}
 */
public class SignCodeScan {
    static final int N = 100_000, W = 6, K = 80;
    static long[] codes = new long[N * W];
    static int[] docs = new int[N];
    static long sink;
    // "general": a call per entry and a loop over the words, as SignCodes.distance
    static int wordsField = W;
    static int distF(int doc, long[] q) { int words = wordsField; int at = doc * words, b = 0; for (int w = 0; w < words; w++) b += Long.bitCount(codes[at + w] ^ q[w]); return b; }
    static long[] heapScan(long[] q) {
        long[] heap = new long[K]; int size = 0;
        for (int doc : docs) {
            int d = distF(doc, q);
            if (size == K && d >= (int) (heap[0] >>> 32)) continue;
            long p = (long) d << 32 | doc;
            if (size < K) { heap[size] = p; up(heap, size++); } else { heap[0] = p; down(heap, size); }
        }
        return heap;
    }
    // "sixWords": as SignCodes.nearest for six-word codes
    static long[] unrolledHeap(long[] q) {
        long q0=q[0],q1=q[1],q2=q[2],q3=q[3],q4=q[4],q5=q[5];
        long[] c = codes; long[] heap = new long[K]; int size = 0; int worst = Integer.MAX_VALUE;
        for (int doc : docs) {
            int at = doc * 6;
            int d = Long.bitCount(c[at] ^ q0) + Long.bitCount(c[at+1] ^ q1) + Long.bitCount(c[at+2] ^ q2)
                  + Long.bitCount(c[at+3] ^ q3) + Long.bitCount(c[at+4] ^ q4) + Long.bitCount(c[at+5] ^ q5);
            if (d >= worst) continue;
            long p = (long) d << 32 | doc;
            if (size < K) { heap[size] = p; up(heap, size++); if (size == K) worst = (int) (heap[0] >>> 32); }
            else { heap[0] = p; down(heap, size); worst = (int) (heap[0] >>> 32); }
        }
        return heap;
    }
    static long[] half = new long[N * 3];
    static long[] halfScan(long[] q, boolean separate) {
        long q0=q[0],q1=q[1],q2=q[2];
        long[] c = separate ? half : codes; int stride = separate ? 3 : 6; long[] heap = new long[K * 4]; int size = 0; int worst = Integer.MAX_VALUE;
        int cap = K * 4;
        for (int doc : docs) {
            int at = doc * stride;
            int d = Long.bitCount(c[at] ^ q0) + Long.bitCount(c[at+1] ^ q1) + Long.bitCount(c[at+2] ^ q2);
            if (d >= worst) continue;
            long p = (long) d << 32 | doc;
            if (size < cap) { heap[size] = p; up(heap, size++); if (size == cap) worst = (int) (heap[0] >>> 32); }
            else { heap[0] = p; down(heap, size); worst = (int) (heap[0] >>> 32); }
        }
        return heap;
    }
    static void up(long[] h, int a) { while (a > 0) { int p = (a - 1) >>> 1; if (h[p] >= h[a]) return; long t = h[p]; h[p] = h[a]; h[a] = t; a = p; } }
    static void down(long[] h, int s) { int a = 0; while (true) { int l = 2*a+1, g = a; if (l < s && h[l] > h[g]) g = l; if (l+1 < s && h[l+1] > h[g]) g = l+1; if (g == a) return; long t = h[a]; h[a] = h[g]; h[g] = t; a = g; } }
    public static void main(String[] a) {
        SplittableRandom r = new SplittableRandom(1);
        for (int i = 0; i < codes.length; i++) codes[i] = r.nextLong();
        for (int i = 0; i < N; i++) docs[i] = i;
        for (int i = 0; i < N; i++) for (int w = 0; w < 3; w++) half[i * 3 + w] = codes[i * 6 + w];
        long[][] qs = new long[200][W]; for (long[] q : qs) for (int w = 0; w < W; w++) q[w] = r.nextLong();
        for (int round = 0; round < 6; round++) {
            for (String v : List.of("general", "sixWords", "halfCodes")) {
                var mx = java.lang.management.ManagementFactory.getThreadMXBean(); long t0 = mx.getCurrentThreadCpuTime();
                for (long[] q : qs) { long[] o = v.equals("general") ? heapScan(q) : v.equals("halfCodes") ? halfScan(q, true) : unrolledHeap(q); sink += o[0]; }
                if (round >= 2) System.out.printf("%s %-13s %.3f ms/scan%n", round, v, (mx.getCurrentThreadCpuTime() - t0) / 1e6 / qs.length);
            }
        }
        // check same set
        long[] x = heapScan(qs[0]), y = unrolledHeap(qs[0]);
        long sx = Arrays.stream(x).map(v -> v >>> 32).sum(), sy = Arrays.stream(y).map(v -> v >>> 32).sum();
        System.out.println("the same 80 by both full scans: " + (sx == sy) + " (" + sink + ")");
    }
}
