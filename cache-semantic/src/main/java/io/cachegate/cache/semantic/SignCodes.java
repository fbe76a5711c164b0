package io.cachegate.cache.semantic;

import java.io.IOException;
import java.util.Arrays;
import java.util.function.IntPredicate;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.search.DocIdSetIterator;

/**
 * One bit a dimension for each vector of a segment, its sign, and the Hamming distance between two such codes. The
 * angle between two vectors is about π times the share of dimensions whose signs differ, so a code ranks the entries
 * near a query as their vectors do, give or take a few bits: a paraphrase at cosine 0.93 differs in ~46 of 384
 * bits, an unrelated entry (cosine 0.4 to 0) in ~140–190. Scanning codes (48 bytes and six popcounts an entry at 384
 * dimensions, in memory) and comparing only the best few vectors finds the near entries of a large scope, which a
 * graph search of the same cost misses.
 */
final class SignCodes {

    private final int words;
    private final long[] codes;

    private SignCodes(int words, long[] codes) {
        this.words = words;
        this.codes = codes;
    }

    /**
     * The codes of a segment's vectors, {@code doc}'s in row {@code rows[doc]} of {@code rowCount} (none where that is
     * -1); a row whose document has no vector has all bits 0.
     */
    static SignCodes of(FloatVectorValues vectors, int[] rows, int rowCount) throws IOException {
        int words = words(vectors.dimension());
        long[] codes = new long[Math.multiplyExact(rowCount, words)];
        for (int doc = vectors.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = vectors.nextDoc()) {
            if (rows[doc] >= 0) {
                encode(vectors.vectorValue(), codes, rows[doc] * words);
            }
        }
        return new SignCodes(words, codes);
    }

    /** The code of a query. */
    static long[] of(float[] vector) {
        long[] code = new long[words(vector.length)];
        encode(vector, code, 0);
        return code;
    }

    /** The number of dimensions whose signs differ between the vector of {@code row} and the query's {@code code}. */
    int distance(int row, long[] code) {
        int at = row * words;
        int bits = 0;
        for (int w = 0; w < words; w++) {
            bits += Long.bitCount(codes[at + w] ^ code[w]);
        }
        return bits;
    }

    /**
     * The {@code n} documents of {@code docs}, whose codes are rows {@code firstRow} on, nearest to the query's
     * {@code code}, under {@code under} ({@link Integer#MAX_VALUE} for no bound), and that {@code accepted} admits
     * (asked with a document's position in {@code docs}), as {@code distance << 32 | doc}, in no order; of equally
     * distant ones, the first in {@code docs}. A bounded max-heap: most documents are turned away by their distance
     * alone, before {@code accepted} is asked.
     * The scan is a search's main cost (a scope of 100,000 is 4.8 MB of codes at 384 dimensions), so codes of six
     * words, the 384 dimensions of the bundled models, have a loop of their own with the query's words in
     * registers: 0.5–0.7× the CPU of the general loop on Java 25 (docs/benchmarks.md).
     */
    long[] nearest(int[] docs, int firstRow, long[] code, int n, int under, IntPredicate accepted) {
        Heap heap = new Heap(n, under);
        if (words == 6) {
            long q0 = code[0], q1 = code[1], q2 = code[2], q3 = code[3], q4 = code[4], q5 = code[5];
            long[] c = codes;
            int at = firstRow * 6;
            for (int i = 0; i < docs.length; i++, at += 6) {
                int distance = Long.bitCount(c[at] ^ q0) + Long.bitCount(c[at + 1] ^ q1)
                        + Long.bitCount(c[at + 2] ^ q2) + Long.bitCount(c[at + 3] ^ q3)
                        + Long.bitCount(c[at + 4] ^ q4) + Long.bitCount(c[at + 5] ^ q5);
                if (distance < heap.worst && accepted.test(i)) {
                    heap.offer(distance, docs[i]);
                }
            }
        } else {
            for (int i = 0; i < docs.length; i++) {
                int distance = distance(firstRow + i, code);
                if (distance < heap.worst && accepted.test(i)) {
                    heap.offer(distance, docs[i]);
                }
            }
        }
        return heap.contents();
    }

    /** Memory held, in bytes. */
    long bytes() {
        return 8L * codes.length;
    }

    private static int words(int dimension) {
        return (dimension + 63) / 64;
    }

    /**
     * Sets bit i of the code at {@code at} when component i is positive. A word at a time, the test as a 0 or 1
     * rather than a branch: the signs of an embedding are a coin toss each, so a branch was mispredicted about every
     * other component (2.2 µs a 384-dimension vector against 0.2–0.4, on every segment a refresh or merge opens).
     */
    private static void encode(float[] vector, long[] into, int at) {
        for (int base = 0, w = at; base < vector.length; base += 64, w++) {
            int end = Math.min(base + 64, vector.length);
            long word = 0;
            for (int i = base; i < end; i++) {
                word |= (vector[i] > 0 ? 1L : 0L) << (i - base);
            }
            into[w] = word;
        }
    }

    /** The n nearest so far as {@code distance << 32 | doc}, the farthest on top. */
    private static final class Heap {
        private final long[] heap;
        private int size;
        /** A distance a document must be under to enter: the bound given until the heap is full. */
        int worst;

        Heap(int n, int under) {
            heap = new long[n];
            worst = n == 0 ? 0 : under;
        }

        void offer(int distance, int doc) {
            long packed = (long) distance << 32 | doc;
            if (size < heap.length) {
                heap[size] = packed;
                siftUp(size++);
            } else {
                heap[0] = packed;
                siftDown();
            }
            if (size == heap.length) {
                worst = (int) (heap[0] >>> 32);
            }
        }

        long[] contents() {
            return size == heap.length ? heap : Arrays.copyOf(heap, size);
        }

        private void siftUp(int at) {
            while (at > 0) {
                int parent = (at - 1) >>> 1;
                if (heap[parent] >= heap[at]) {
                    return;
                }
                swap(parent, at);
                at = parent;
            }
        }

        private void siftDown() {
            int at = 0;
            while (true) {
                int largest = at;
                int left = 2 * at + 1;
                if (left < size && heap[left] > heap[largest]) {
                    largest = left;
                }
                if (left + 1 < size && heap[left + 1] > heap[largest]) {
                    largest = left + 1;
                }
                if (largest == at) {
                    return;
                }
                swap(at, largest);
                at = largest;
            }
        }

        private void swap(int i, int j) {
            long t = heap[i];
            heap[i] = heap[j];
            heap[j] = t;
        }
    }
}
