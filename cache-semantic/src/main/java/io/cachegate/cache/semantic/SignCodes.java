package io.cachegate.cache.semantic;

import java.io.IOException;
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

    /** The codes of every vector of a segment of {@code maxDoc} documents; a document without one has all bits 0. */
    static SignCodes of(FloatVectorValues vectors, int maxDoc) throws IOException {
        int words = words(vectors.dimension());
        long[] codes = new long[Math.multiplyExact(maxDoc, words)];
        for (int doc = vectors.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = vectors.nextDoc()) {
            encode(vectors.vectorValue(), codes, doc * words);
        }
        return new SignCodes(words, codes);
    }

    /** The code of a query. */
    static long[] of(float[] vector) {
        long[] code = new long[words(vector.length)];
        encode(vector, code, 0);
        return code;
    }

    /** The number of dimensions whose signs differ between {@code doc}'s vector and the query's {@code code}. */
    int distance(int doc, long[] code) {
        int at = doc * words;
        int bits = 0;
        for (int w = 0; w < words; w++) {
            bits += Long.bitCount(codes[at + w] ^ code[w]);
        }
        return bits;
    }

    /** Memory held, in bytes. */
    long bytes() {
        return 8L * codes.length;
    }

    private static int words(int dimension) {
        return (dimension + 63) / 64;
    }

    private static void encode(float[] vector, long[] into, int at) {
        for (int i = 0; i < vector.length; i++) {
            if (vector[i] > 0) {
                into[at + (i >>> 6)] |= 1L << (i & 63);
            }
        }
    }
}
