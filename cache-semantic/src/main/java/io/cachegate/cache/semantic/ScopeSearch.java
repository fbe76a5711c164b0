package io.cachegate.cache.semantic;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
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
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.FixedBitSet;

/**
 * The k nearest live entries of one scope, segment by segment. A segment where the scope holds at most
 * {@code exactLimit} entries is searched exactly: its postings list gives the scope's documents and each of their
 * vectors is compared, which for a small scope among many is less work than a graph search that visits more nodes
 * than the scope holds. A larger share goes through the segment's HNSW graph with a filter answering per document
 * from the scope's bits (none when the whole segment is in the scope), the live docs and {@link ExpiryTimes}.
 * Unlike Lucene's filtered {@code KnnFloatVectorQuery}, no filter query is evaluated into a bit set over the whole
 * segment on every search. Scores are Lucene's for DOT_PRODUCT, {@code (1 + cosine) / 2}.
 */
final class ScopeSearch {

    private static final Comparator<ScoreDoc> WORST_FIRST =
            Comparator.<ScoreDoc>comparingDouble(d -> d.score).thenComparing(d -> -d.doc);

    private final IndexSearcher searcher;
    private final ExpiryTimes expiries;
    private final String vectorField;
    private final String scopeField;
    private final int exactLimit;

    ScopeSearch(IndexSearcher searcher, ExpiryTimes expiries, String vectorField, String scopeField, int exactLimit) {
        this.searcher = searcher;
        this.expiries = expiries;
        this.vectorField = vectorField;
        this.scopeField = scopeField;
        this.exactLimit = exactLimit;
    }

    /**
     * The {@code k} nearest documents (index-wide ids), best first, of {@code scope}, unexpired at {@code nowMillis}
     * and not matched by {@code unreadable} (null when every label is readable).
     */
    List<ScoreDoc> nearest(String scope, float[] vector, int k, long nowMillis, Query unreadable) throws IOException {
        Weight hidden = unreadable == null ? null
                : searcher.createWeight(searcher.rewrite(unreadable), ScoreMode.COMPLETE_NO_SCORES, 1f);
        BytesRef term = new BytesRef(scope);
        PriorityQueue<ScoreDoc> best = new PriorityQueue<>(k + 1, WORST_FIRST);
        for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
            LeafReader segment = leaf.reader();
            Terms scopes = segment.terms(scopeField);
            FloatVectorValues vectors = segment.getFloatVectorValues(vectorField);
            if (scopes == null || vectors == null) {
                continue;
            }
            TermsEnum terms = scopes.iterator();
            if (!terms.seekExact(term)) {
                continue;
            }
            Bits unreadableDocs = hidden == null ? null : matching(hidden, leaf);
            long[] expires = expiries.of(segment);
            if (terms.docFreq() <= exactLimit) {
                exact(leaf, terms.postings(null, PostingsEnum.NONE), vectors.scorer(vector), expires, nowMillis,
                        unreadableDocs, best, k);
            } else {
                Bits inScope = terms.docFreq() == segment.maxDoc() ? null : bits(terms.postings(null, PostingsEnum.NONE), segment.maxDoc());
                graph(leaf, vector, k, terms.docFreq(), accepted(segment.getLiveDocs(), inScope, expires, nowMillis, unreadableDocs),
                        vectors, expires, nowMillis, unreadableDocs, best);
            }
        }
        List<ScoreDoc> out = new ArrayList<>(best);
        out.sort(WORST_FIRST.reversed());
        return out;
    }

    private static void exact(LeafReaderContext leaf, PostingsEnum inScope, VectorScorer scorer, long[] expires,
                              long nowMillis, Bits unreadable, PriorityQueue<ScoreDoc> best, int k) throws IOException {
        if (scorer == null) {
            return;
        }
        Bits live = leaf.reader().getLiveDocs();
        DocIdSetIterator withVector = scorer.iterator();
        for (int doc = inScope.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = inScope.nextDoc()) {
            if ((live != null && !live.get(doc)) || !ExpiryTimes.live(expires[doc], nowMillis)
                    || (unreadable != null && unreadable.get(doc))) {
                continue;
            }
            if (withVector.docID() < doc && withVector.advance(doc) != doc) {
                continue;
            }
            if (withVector.docID() == doc) {
                offer(best, k, leaf.docBase + doc, scorer.score());
            }
        }
    }

    private void graph(LeafReaderContext leaf, float[] vector, int k, int inScope, Bits accepted,
                       FloatVectorValues vectors, long[] expires, long nowMillis, Bits unreadable,
                       PriorityQueue<ScoreDoc> best) throws IOException {
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
                        && ExpiryTimes.live(expires[doc], nowMillis) && (unreadable == null || !unreadable.get(doc));
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

    private static void offer(PriorityQueue<ScoreDoc> best, int k, int doc, float score) {
        if (best.size() < k) {
            best.add(new ScoreDoc(doc, score));
        } else if (score > best.peek().score) {
            best.poll();
            best.add(new ScoreDoc(doc, score));
        }
    }
}
