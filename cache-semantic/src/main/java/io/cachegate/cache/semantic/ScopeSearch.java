package io.cachegate.cache.semantic;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
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
 * The k nearest live entries of one scope, segment by segment. A segment where the scope's entries are few, or a
 * small share of the segment (at most {@code exactLimit} in any case), is searched exactly: its {@link SegmentFacts}
 * list the scope's documents and each of their vectors is compared, which there costs less than a graph search that
 * visits more nodes than the scope holds. Otherwise the search goes through the segment's HNSW graph with a filter
 * answering per document from the scope's bits (none when the whole segment is in the scope), the live docs and the
 * expiry times.
 * Unlike Lucene's filtered {@code KnnFloatVectorQuery}, no filter query is evaluated into a bit set over the whole
 * segment, and no term is looked up, on every search. The segments are searched as separate tasks: by the calling
 * thread, and by a helper when one is idle (a large scope spread over many segments takes half as long on two
 * cores, and a busy machine loses nothing). Scores are the field's similarity, for DOT_PRODUCT
 * {@code (1 + cosine) / 2}.
 */
final class ScopeSearch {

    private static final Comparator<ScoreDoc> WORST_FIRST =
            Comparator.<ScoreDoc>comparingDouble(d -> d.score).thenComparing(d -> -d.doc);

    private static final int GRAPH_VISITS = 500;
    private static final double VISIT_COST = 2.6;

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
        List<Callable<PriorityQueue<ScoreDoc>>> segments = new ArrayList<>();
        for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
            segments.add(() -> nearestIn(leaf, scope, vector, k, nowMillis, hidden));
        }
        PriorityQueue<ScoreDoc> best = new PriorityQueue<>(k + 1, WORST_FIRST);
        for (PriorityQueue<ScoreDoc> found : IndexThreads.runShared(segments, helpers)) {
            for (ScoreDoc d : found) {
                offer(best, k, d.doc, d.score);
            }
        }
        List<ScoreDoc> out = new ArrayList<>(best);
        out.sort(WORST_FIRST.reversed());
        return out;
    }

    /** The k nearest of one segment, with index-wide ids. */
    private PriorityQueue<ScoreDoc> nearestIn(LeafReaderContext leaf, String scope, float[] vector, int k,
                                              long nowMillis, Weight hidden) throws IOException {
        PriorityQueue<ScoreDoc> best = new PriorityQueue<>(k + 1, WORST_FIRST);
        LeafReader segment = leaf.reader();
        SegmentFacts.Facts known = facts.of(segment);
        int[] inScope = known.scopes().get(scope);
        FloatVectorValues vectors = inScope == null ? null : segment.getFloatVectorValues(vectorField);
        if (vectors == null) {
            return best;
        }
        Bits unreadableDocs = hidden == null ? null : matching(hidden, leaf);
        if (exactIsCheaper(inScope.length, segment.maxDoc())) {
            VectorSimilarityFunction similarity =
                    segment.getFieldInfos().fieldInfo(vectorField).getVectorSimilarityFunction();
            exact(leaf, inScope, vectors, similarity, vector, known.expires(), nowMillis, unreadableDocs, best, k);
        } else {
            Bits scopeBits = inScope.length == segment.maxDoc() ? null : bits(inScope, segment.maxDoc());
            Bits accepted = accepted(segment.getLiveDocs(), scopeBits, known.expires(), nowMillis, unreadableDocs);
            graph(leaf, vector, k, inScope.length, accepted, vectors, best);
        }
        return best;
    }

    /**
     * Whether comparing each of the scope's vectors in a segment costs less than its graph search. Measured with
     * k = 10 on 384 dimensions (docs/benchmarks.md): a graph search compares about {@link #GRAPH_VISITS} vectors
     * when the whole segment is in the scope, whatever its size, and about that many divided by the scope's share
     * when a filter rejects the rest; each of its comparisons costs about {@link #VISIT_COST} exact ones (it decodes
     * neighbour lists and reads vectors scattered over the file). So exact wins for a scope of up to ~1,300 entries
     * alone in its segment, and for far more when the scope is a small share of a large segment.
     */
    private boolean exactIsCheaper(int inScope, int maxDoc) {
        return inScope <= exactLimit && (long) inScope * inScope <= (long) (GRAPH_VISITS * VISIT_COST) * maxDoc;
    }

    private static void exact(LeafReaderContext leaf, int[] inScope, FloatVectorValues vectors,
                              VectorSimilarityFunction similarity, float[] query, long[] expires, long nowMillis,
                              Bits unreadable, PriorityQueue<ScoreDoc> best, int k) throws IOException {
        Bits live = leaf.reader().getLiveDocs();
        for (int doc : inScope) {
            if ((live != null && !live.get(doc)) || !SegmentFacts.live(expires[doc], nowMillis)
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
    private static Bits accepted(Bits live, Bits inScope, long[] expires, long nowMillis, Bits unreadable) {
        return new Bits() {
            @Override
            public boolean get(int doc) {
                return (live == null || live.get(doc)) && (inScope == null || inScope.get(doc))
                        && SegmentFacts.live(expires[doc], nowMillis) && (unreadable == null || !unreadable.get(doc));
            }

            @Override
            public int length() {
                return expires.length;
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

    private static FixedBitSet bits(int[] docs, int maxDoc) {
        FixedBitSet bits = new FixedBitSet(maxDoc);
        for (int doc : docs) {
            bits.set(doc);
        }
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
