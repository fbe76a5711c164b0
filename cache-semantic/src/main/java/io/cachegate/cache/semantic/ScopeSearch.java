package io.cachegate.cache.semantic;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.search.VectorScorer;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.FixedBitSet;

/**
 * The k nearest live entries of one scope, segment by segment. Its {@link SegmentFacts} list the scope's documents in
 * each segment. Where they are few (at most {@link #rescored}), each of their vectors is compared. Where they are more,
 * up to {@code exactLimit}, their {@link SignCodes} are scanned, and the vectors of the {@link #rescored} nearest by
 * code over all such segments are compared: the entries near the query, which a hit is made of, are found as
 * comparing every vector finds them, where each segment's HNSW graph searched with a beam of k missed the near entry
 * of a scope of 100,000 random vectors 32% of the time (docs/benchmarks.md). By default {@code exactLimit} is
 * {@link LuceneIndexOptions#NO_GRAPHS} and no segment is written with a graph. Below it, a scope beyond
 * {@code exactLimit} goes through the segment's graph with a filter answering per document from the scope's bits
 * (none when the whole segment is in the scope), the live docs and the expiry times; a segment written without a
 * graph then has every accepted vector compared.
 * Unlike Lucene's filtered {@code KnnFloatVectorQuery}, no filter query is evaluated into a bit set over the whole
 * segment, and no term is looked up, on every search. The segments are searched as separate tasks: by the calling
 * thread, and by a helper when one is idle (a large scope spread over many segments takes half as long on two
 * cores, and a busy machine loses nothing). Scores are the field's similarity, for DOT_PRODUCT
 * {@code (1 + cosine) / 2}.
 */
final class ScopeSearch {

    private static final Comparator<ScoreDoc> WORST_FIRST =
            Comparator.<ScoreDoc>comparingDouble(d -> d.score).thenComparing(d -> -d.doc);

    /** Vectors compared per neighbour asked for, after a scan of codes: a code's rank is off by a few bits. */
    private static final int RESCORED_PER_NEIGHBOUR = 8;
    private static final int MIN_RESCORED = 64;
    private static final long[] NONE = new long[0];

    private final IndexSearcher searcher;
    private final SegmentFacts facts;
    private final String vectorField;
    private final int exactLimit;
    private final Executor helpers;

    /** @param helpers {@link IndexThreads#idleHelpers}, which search segments beside the calling thread when idle */
    ScopeSearch(IndexSearcher searcher, SegmentFacts facts, String vectorField, int exactLimit, Executor helpers) {
        this.searcher = searcher;
        this.facts = facts;
        this.vectorField = vectorField;
        this.exactLimit = exactLimit;
        this.helpers = helpers;
    }

    /**
     * The {@code k} nearest documents (index-wide ids), best first, of {@code scope}, unexpired at {@code nowMillis}
     * and not matched by {@code unreadable} (null when every label is readable).
     */
    List<ScoreDoc> nearest(String scope, float[] vector, int k, long nowMillis, Query unreadable) throws IOException {
        Weight hidden = unreadable == null ? null
                : searcher.createWeight(searcher.rewrite(unreadable), ScoreMode.COMPLETE_NO_SCORES, 1f);
        long[] code = SignCodes.of(vector);
        AtomicInteger under = new AtomicInteger(Integer.MAX_VALUE);
        List<Callable<Found>> segments = new ArrayList<>();
        for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
            segments.add(() -> nearestIn(leaf, scope, vector, code, under, k, nowMillis, hidden));
        }
        PriorityQueue<ScoreDoc> best = new PriorityQueue<>(k + 1, WORST_FIRST);
        List<long[]> byCode = new ArrayList<>();
        for (Found found : IndexThreads.runShared(segments, helpers)) {
            for (ScoreDoc d : found.scored()) {
                offer(best, k, d.doc, d.score);
            }
            if (found.byCode().length > 0) {
                byCode.add(found.byCode());
            }
        }
        if (!byCode.isEmpty()) {
            rescore(nearestOf(byCode, rescored(k)), vector, best, k);
        }
        List<ScoreDoc> out = new ArrayList<>(best);
        out.sort(WORST_FIRST.reversed());
        return out;
    }

    /**
     * What one segment's task found, with index-wide ids: its k nearest where it compared vectors or searched its
     * graph, else its nearest by code as {@code distance << 32 | doc}, whose vectors are compared once every segment
     * is scanned (the nearest by code of all segments together, not of each: a scope over 10 segments compares 80
     * vectors, not 10 × 80).
     */
    private record Found(PriorityQueue<ScoreDoc> scored, long[] byCode) {
    }

    /**
     * @param under the distance by code a document must be under to be among the {@link #rescored} nearest of all
     *              segments: one past the farthest of the nearest of a segment already scanned that found as many
     */
    private Found nearestIn(LeafReaderContext leaf, String scope, float[] vector, long[] code, AtomicInteger under,
                            int k, long nowMillis, Weight hidden) throws IOException {
        PriorityQueue<ScoreDoc> best = new PriorityQueue<>(k + 1, WORST_FIRST);
        LeafReader segment = leaf.reader();
        SegmentFacts.Facts known = facts.of(segment);
        SegmentFacts.Scope found = known.scopes().get(scope);
        if (found == null || known.codes() == null) { // codes are null where the segment has no vectors
            return new Found(best, NONE);
        }
        int[] inScope = found.docs();
        Bits unreadableDocs = hidden == null ? null : matching(hidden, leaf);
        if (inScope.length > rescored(k) && inScope.length <= exactLimit) {
            // No vectors opened here: a reader of them allocates its buffers, and only the rescoring needs them.
            return new Found(best, nearestByCode(leaf, found, known.codes(), code, rescored(k), under, nowMillis, unreadableDocs));
        }
        FloatVectorValues vectors = segment.getFloatVectorValues(vectorField);
        if (inScope.length <= exactLimit) {
            VectorSimilarityFunction similarity =
                    segment.getFieldInfos().fieldInfo(vectorField).getVectorSimilarityFunction();
            exact(leaf, found, vectors, similarity, vector, nowMillis, unreadableDocs, best, k);
        } else {
            Bits accepted = accepted(segment.getLiveDocs(), found, segment.maxDoc(), nowMillis, unreadableDocs);
            graph(leaf, vector, k, inScope.length, accepted, vectors, best);
        }
        return new Found(best, NONE);
    }

    /** The index-wide ids of the {@code n} nearest by code of all segments' candidates, ascending. */
    private static int[] nearestOf(List<long[]> byCode, int n) {
        long[] all = byCode.get(0);
        if (byCode.size() > 1) {
            all = new long[byCode.stream().mapToInt(codes -> codes.length).sum()];
            int at = 0;
            for (long[] codes : byCode) {
                System.arraycopy(codes, 0, all, at, codes.length);
                at += codes.length;
            }
        }
        Arrays.sort(all);
        int[] docs = new int[Math.min(n, all.length)];
        for (int i = 0; i < docs.length; i++) {
            docs[i] = (int) all[i];
        }
        Arrays.sort(docs);
        return docs;
    }

    /** Compares the vectors of {@code docs} (index-wide ids, ascending, already filtered) with the query. */
    private void rescore(int[] docs, float[] query, PriorityQueue<ScoreDoc> best, int k) throws IOException {
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        int i = 0;
        while (i < docs.length) {
            LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(docs[i], leaves));
            FloatVectorValues vectors = leaf.reader().getFloatVectorValues(vectorField);
            VectorSimilarityFunction similarity =
                    leaf.reader().getFieldInfos().fieldInfo(vectorField).getVectorSimilarityFunction();
            int end = leaf.docBase + leaf.reader().maxDoc();
            for (; i < docs.length && docs[i] < end; i++) {
                int doc = docs[i] - leaf.docBase;
                if (vectors.docID() < doc && vectors.advance(doc) != doc) {
                    continue;
                }
                if (vectors.docID() == doc) {
                    offer(best, k, docs[i], similarity.compare(query, vectors.vectorValue()));
                }
            }
        }
    }

    /** How many vectors are compared after a scan of codes for the k nearest. */
    static int rescored(int k) {
        return Math.max(MIN_RESCORED, RESCORED_PER_NEIGHBOUR * k);
    }

    /**
     * The {@code n} accepted documents of {@code inScope} whose codes are nearest to {@code code}, as
     * {@code distance << 32 | index-wide doc}, in no order; liveness and expiry are read only for documents whose
     * distance would enter the n nearest. A document farther than the n nearest of a segment scanned before cannot be
     * among the n nearest of all: each segment scanned lowers the bound of those after it, so a scope of 10 segments
     * does not fill 10 heaps from scratch (ties at the bound are kept, and the result is that of no bound).
     */
    private static long[] nearestByCode(LeafReaderContext leaf, SegmentFacts.Scope inScope, SignCodes codes,
                                       long[] code, int n, AtomicInteger under, long nowMillis, Bits unreadable) {
        int[] docs = inScope.docs();
        long[] expires = inScope.expires();
        Bits live = leaf.reader().getLiveDocs();
        long[] nearest = codes.nearest(docs, inScope.firstRow(), code, n, under.get(), i -> (live == null
                || live.get(docs[i])) && SegmentFacts.live(expires[i], nowMillis)
                && (unreadable == null || !unreadable.get(docs[i])));
        if (nearest.length == n && n > 0) {
            int farthest = 0;
            for (long packed : nearest) {
                farthest = Math.max(farthest, (int) (packed >>> 32));
            }
            under.accumulateAndGet(farthest + 1, Math::min);
        }
        for (int i = 0; i < nearest.length; i++) {
            nearest[i] += leaf.docBase;
        }
        return nearest;
    }

    private static void exact(LeafReaderContext leaf, SegmentFacts.Scope inScope, FloatVectorValues vectors,
                              VectorSimilarityFunction similarity, float[] query, long nowMillis,
                              Bits unreadable, PriorityQueue<ScoreDoc> best, int k) throws IOException {
        Bits live = leaf.reader().getLiveDocs();
        int[] docs = inScope.docs();
        for (int i = 0; i < docs.length; i++) {
            int doc = docs[i];
            if ((live != null && !live.get(doc)) || !SegmentFacts.live(inScope.expires()[i], nowMillis)
                    || (unreadable != null && unreadable.get(doc))) {
                continue;
            }
            if (vectors.docID() < doc && vectors.advance(doc) != doc) {
                continue;
            }
            if (vectors.docID() == doc) {
                offer(best, k, leaf.docBase + doc, similarity.compare(query, vectors.vectorValue()));
            }
        }
    }

    private void graph(LeafReaderContext leaf, float[] vector, int k, int inScope, Bits accepted,
                       FloatVectorValues vectors, PriorityQueue<ScoreDoc> best) throws IOException {
        // As Lucene does: a graph search that visits more nodes than the scope holds is given up for an exact one.
        TopDocs found = leaf.reader().searchNearestVectors(vectorField, vector, k, accepted, inScope + 1);
        if (found.totalHits.relation == TotalHits.Relation.EQUAL_TO && found.scoreDocs.length >= k) {
            for (ScoreDoc d : found.scoreDocs) {
                offer(best, k, leaf.docBase + d.doc, d.score);
            }
            return;
        }
        VectorScorer scorer = vectors.scorer(vector);
        DocIdSetIterator all = scorer.iterator();
        for (int doc = all.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = all.nextDoc()) {
            if (accepted.get(doc)) {
                offer(best, k, leaf.docBase + doc, scorer.score());
            }
        }
    }

    /** Per-document filter of a graph search: live, in the scope, unexpired and readable. */
    private static Bits accepted(Bits live, SegmentFacts.Scope inScope, int maxDoc, long nowMillis, Bits unreadable) {
        return new Bits() {
            @Override
            public boolean get(int doc) {
                return (live == null || live.get(doc)) && SegmentFacts.live(inScope.expiresOf(doc), nowMillis)
                        && (unreadable == null || !unreadable.get(doc));
            }

            @Override
            public int length() {
                return maxDoc;
            }
        };
    }

    private static Bits matching(Weight weight, LeafReaderContext leaf) throws IOException {
        Scorer scorer = weight.scorer(leaf);
        return scorer == null ? null : bits(scorer.iterator(), leaf.reader().maxDoc());
    }

    private static FixedBitSet bits(DocIdSetIterator docs, int maxDoc) throws IOException {
        FixedBitSet bits = new FixedBitSet(maxDoc);
        bits.or(docs);
        return bits;
    }

    private static void offer(PriorityQueue<ScoreDoc> best, int k, int doc, float score) {
        if (best.size() < k) {
            best.add(new ScoreDoc(doc, score));
        } else if (score > best.peek().score) {
            best.poll();
            best.add(new ScoreDoc(doc, score));
        }
    }
}
