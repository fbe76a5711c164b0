package io.cachegate.cache.semantic;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.BytesRef;

/**
 * What a search needs of each segment, read once per segment (when a refresh opens it) and dropped when Lucene
 * closes it; a segment's documents never change, only which of them are live. Three facts:
 * <ul>
 *   <li>each document's expiry time, as an array indexed by document: a graph search tests entries in no
 *       particular order, which doc values cannot answer, and a per-search filter bit set over the whole segment is
 *       what made large scopes slow (8 bytes an entry, 0.8 MB per 100,000);</li>
 *   <li>each scope's documents, ascending: a profile of 100 scopes in 100,000 entries spent about two thirds of a
 *       search looking up the scope's term and opening its postings in every segment, not comparing vectors
 *       (4 bytes an entry, plus a map entry per scope and segment);</li>
 *   <li>each document's {@link SignCodes} (48 bytes an entry at 384 dimensions), for scanning a large scope, held
 *       scope by scope: a scope's codes lie side by side, so a scan of one of 100 scopes reads memory in order
 *       rather than one code in every hundred (a million entries in 100 scopes: a sixth less CPU a search,
 *       docs/benchmarks.md).</li>
 * </ul>
 */
final class SegmentFacts {

    /**
     * The facts of one segment. {@code scopes} maps a scope to its documents; absent scopes have none.
     * {@code codes} is null when the segment has no vectors.
     */
    record Facts(long[] expires, Map<String, Scope> scopes, SignCodes codes) {
    }

    /** One scope's documents in a segment, ascending; the code of {@code docs[i]} is row {@code firstRow + i}. */
    record Scope(int[] docs, int firstRow) {
    }

    private final String expiryField;
    private final String scopeField;
    private final String vectorField;
    private final Map<IndexReader.CacheKey, Facts> bySegment = new ConcurrentHashMap<>();

    SegmentFacts(String expiryField, String scopeField, String vectorField) {
        this.expiryField = expiryField;
        this.scopeField = scopeField;
        this.vectorField = vectorField;
    }

    /** True when an entry expiring at {@code expiresAt} may be returned at {@code nowMillis}; never-expiring always. */
    static boolean live(long expiresAt, long nowMillis) {
        return expiresAt > nowMillis || expiresAt == Long.MAX_VALUE;
    }

    /** The facts of {@code segment}; a document without an expiry time never matches. */
    Facts of(LeafReader segment) {
        IndexReader.CacheHelper helper = segment.getCoreCacheHelper();
        if (helper == null) {
            return load(segment);
        }
        Facts known = bySegment.get(helper.getKey());
        if (known != null) {
            return known;
        }
        Facts loaded = load(segment);
        if (bySegment.putIfAbsent(helper.getKey(), loaded) == null) {
            helper.addClosedListener(bySegment::remove);
        }
        return loaded;
    }

    private Facts load(LeafReader segment) {
        try {
            FloatVectorValues vectors = segment.getFloatVectorValues(vectorField);
            Map<String, Scope> scopes = scopes(segment);
            return new Facts(expires(segment), scopes, vectors == null ? null : codes(vectors, segment.maxDoc(), scopes));
        } catch (IOException e) {
            throw new UncheckedIOException("reading a semantic index segment's expiry times, scopes and vectors", e);
        }
    }

    private long[] expires(LeafReader segment) throws IOException {
        long[] expires = new long[segment.maxDoc()];
        Arrays.fill(expires, Long.MIN_VALUE);
        SortedNumericDocValues values = DocValues.getSortedNumeric(segment, expiryField);
        for (int doc = values.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = values.nextDoc()) {
            expires[doc] = values.nextValue();
        }
        return expires;
    }

    private Map<String, Scope> scopes(LeafReader segment) throws IOException {
        Terms terms = segment.terms(scopeField);
        if (terms == null) {
            return Map.of();
        }
        Map<String, Scope> scopes = new HashMap<>();
        TermsEnum each = terms.iterator();
        PostingsEnum postings = null;
        int rows = 0;
        for (BytesRef scope = each.next(); scope != null; scope = each.next()) {
            int[] docs = new int[each.docFreq()];
            postings = each.postings(postings, PostingsEnum.NONE);
            int n = 0;
            for (int doc = postings.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = postings.nextDoc()) {
                docs[n++] = doc;
            }
            scopes.put(scope.utf8ToString(), new Scope(n == docs.length ? docs : Arrays.copyOf(docs, n), rows));
            rows += n;
        }
        return Map.copyOf(scopes);
    }

    /** The codes, a row a document of some scope, in the rows {@link #scopes} gave them. */
    private static SignCodes codes(FloatVectorValues vectors, int maxDoc, Map<String, Scope> scopes) throws IOException {
        int[] rows = new int[maxDoc];
        Arrays.fill(rows, -1);
        int count = 0;
        for (Scope scope : scopes.values()) {
            for (int i = 0; i < scope.docs().length; i++) {
                rows[scope.docs()[i]] = scope.firstRow() + i;
            }
            count += scope.docs().length;
        }
        return SignCodes.of(vectors, rows, count);
    }
}
