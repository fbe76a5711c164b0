package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.search.VectorScorer;
import org.junit.jupiter.api.Test;

/**
 * The nearest documents by code, against sorting every admitted document's distance: the loop of six-word codes (384
 * dimensions) and the general one. Codes are laid out as {@link SegmentFacts} lays them, the searched scope's rows
 * after another scope's, so a row mixed up with a document would show.
 */
class SignCodesTest {

    private final Random random = new Random(5);

    @Test
    void nearest_sixWordCodes_areTheNearestAdmittedBySorting() throws IOException {
        assertNearestAsSorted(384);
    }

    @Test
    void nearest_otherWidths_areTheNearestAdmittedBySorting() throws IOException {
        assertNearestAsSorted(200);
        assertNearestAsSorted(64);
    }

    @Test
    void code_hasABitSetExactlyForEachPositiveComponent() {
        for (int dimension : new int[] {384, 200, 64, 1}) {
            float[] vector = TestVectors.random(random, dimension);
            vector[0] = 0f;
            if (dimension > 2) {
                vector[1] = -0f;
                vector[2] = Float.NaN;
            }
            long[] code = SignCodes.of(vector);

            assertThat(code).hasSize((dimension + 63) / 64);
            for (int i = 0; i < dimension; i++) {
                assertThat((code[i >>> 6] >>> (i & 63) & 1) == 1).as("dimension %d of %d", i, dimension)
                        .isEqualTo(vector[i] > 0);
            }
            for (int i = dimension; i < code.length * 64; i++) {
                assertThat(code[i >>> 6] >>> (i & 63) & 1).as("bit %d past the last dimension", i).isZero();
            }
        }
    }

    @Test
    void nearest_underABound_areTheNearestAdmittedUnderIt_tiesAtItsEdgeKept() throws IOException {
        float[][] vectors = vectors(3_000, 384);
        int[] docs = IntStream.range(0, vectors.length).filter(d -> d % 3 != 0).toArray();
        Scoped scoped = scopedAfterTheRest(vectors, docs);
        long[] code = SignCodes.of(TestVectors.random(random, 384));
        List<Long> all = new ArrayList<>();
        for (int i = 0; i < docs.length; i++) {
            all.add((long) scoped.codes().distance(scoped.firstRow() + i, code) << 32 | docs[i]);
        }
        all.sort(null);
        // The bound another segment's 80 nearest would give: one past the 40th distance here, so fewer than 80 enter.
        int under = (int) (all.get(40) >>> 32) + 1;

        long[] found = scoped.codes().nearest(docs, scoped.firstRow(), code, 80, under, at -> true);

        Arrays.sort(found);
        long[] expected = all.stream().filter(p -> (p >>> 32) < under).limit(80).mapToLong(Long::longValue).toArray();
        assertThat(expected.length).isBetween(41, 79);
        assertThat(found).containsExactly(expected);
    }

    @Test
    void nearest_fewerAdmittedThanAsked_returnsEveryAdmitted() throws IOException {
        float[][] vectors = vectors(50, 384);
        int[] docs = IntStream.range(0, 50).toArray();
        SignCodes codes = scopedAfterTheRest(vectors, docs).codes();

        long[] found = codes.nearest(docs, 0, SignCodes.of(TestVectors.random(random, 384)), 80, Integer.MAX_VALUE,
                at -> docs[at] % 2 == 0);

        assertThat(Arrays.stream(found).mapToInt(p -> (int) p).sorted().toArray())
                .containsExactly(IntStream.range(0, 50).filter(d -> d % 2 == 0).toArray());
    }

    private void assertNearestAsSorted(int dimension) throws IOException {
        float[][] vectors = vectors(3_000, dimension);
        int[] docs = IntStream.range(0, vectors.length).filter(d -> d % 5 != 0).toArray();  // a scope's share
        Scoped scoped = scopedAfterTheRest(vectors, docs);
        IntPredicate accepted = doc -> doc % 7 != 3;  // live, unexpired, readable
        for (int q = 0; q < 40; q++) {
            // Half the queries near a stored vector: the heap then fills with close distances and many ties.
            float[] query = q % 2 == 0 ? TestVectors.random(random, dimension) : vectors[docs[q * 31]].clone();
            long[] code = SignCodes.of(query);
            List<Long> all = new ArrayList<>();
            for (int i = 0; i < docs.length; i++) {
                if (accepted.test(docs[i])) {
                    all.add((long) scoped.codes().distance(scoped.firstRow() + i, code) << 32 | docs[i]);
                }
            }
            all.sort(null);

            long[] found = scoped.codes().nearest(docs, scoped.firstRow(), code, 80, Integer.MAX_VALUE,
                    at -> accepted.test(docs[at]));

            Arrays.sort(found);
            assertThat(found).as("dimension %d, query %d", dimension, q)
                    .containsExactly(all.subList(0, 80).stream().mapToLong(Long::longValue).toArray());
        }
    }

    /** Codes whose rows hold first the documents not in {@code scope}, then {@code scope}'s from {@code firstRow}. */
    private record Scoped(SignCodes codes, int firstRow) {
    }

    private static Scoped scopedAfterTheRest(float[][] vectors, int[] scope) throws IOException {
        int[] rows = new int[vectors.length];
        Arrays.fill(rows, -1);
        for (int doc : scope) {
            rows[doc] = -2;
        }
        int row = 0;
        for (int doc = 0; doc < vectors.length; doc++) {
            if (rows[doc] == -1) {
                rows[doc] = row++;
            }
        }
        int firstRow = row;
        for (int doc : scope) {
            rows[doc] = row++;
        }
        return new Scoped(SignCodes.of(values(vectors), rows, row), firstRow);
    }

    private float[][] vectors(int n, int dimension) {
        float[][] vectors = new float[n][];
        for (int i = 0; i < n; i++) {
            vectors[i] = TestVectors.random(random, dimension);
        }
        return vectors;
    }

    /** Every document with a vector, as a segment reads them. */
    private static FloatVectorValues values(float[][] vectors) {
        return new FloatVectorValues() {
            private int doc = -1;

            @Override
            public int dimension() {
                return vectors[0].length;
            }

            @Override
            public int size() {
                return vectors.length;
            }

            @Override
            public float[] vectorValue() {
                return vectors[doc];
            }

            @Override
            public VectorScorer scorer(float[] query) {
                throw new UnsupportedOperationException("not searched");
            }

            @Override
            public int docID() {
                return doc;
            }

            @Override
            public int nextDoc() {
                return advance(doc + 1);
            }

            @Override
            public int advance(int target) {
                doc = target < vectors.length ? target : NO_MORE_DOCS;
                return doc;
            }
        };
    }
}
