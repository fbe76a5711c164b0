package io.cachegate.cache.semantic;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.BytesRef;

/**
 * What a search needs of each segment, read once per segment (when a refresh opens it) and dropped when Lucene
 * closes it; a segment's documents never change, only which of them are live. Per scope:
 * <ul>
 *   <li>its documents, ascending: a profile of 100 scopes in 100,000 entries spent about two thirds of a
 *       search looking up the scope's term and opening its postings in every segment, not comparing vectors
 *       (4 bytes an entry, plus a map entry per scope and segment);</li>
 *   <li>their expiry times, in the same order: a per-search filter bit set over the whole segment is what made large
 *       scopes slow (8 bytes an entry, 0.8 MB per 100,000);</li>
 *   <li>their {@link SignCodes} (48 bytes an entry at 384 dimensions), for scanning a large scope.</li>
 * </ul>
 * All three are held scope by scope: a scan of one of 100 scopes reads its codes and expiry times in order rather
 * than one in every hundred (a million entries in 100 scopes: about a third less CPU a search, docs/benchmarks.md).
 */
final class SegmentFacts {

    /**
     * The facts of one segment. {@code scopes} maps a scope to its documents; absent scopes have none.
     * {@code codes} is null when the segment has no vectors.
     */
    record Facts(Map<String, Scope> scopes, SignCodes codes) {
    }

    /**
     * One scope's documents in a segment, ascending; {@code docs[i]} expires at {@code expires[i]} (a document without
     * an expiry time never matches) and has code row {@code firstRow + i}.
     */
    record Scope(int[] docs, long[] expires, int firstRow) {

        /** The expiry time of {@code doc}, or {@link Long#MIN_VALUE} (never live) when it is not in the scope. */
        long expiresOf(int doc) {
            int i = Arrays.binarySearch(docs, doc);
            return i < 0 ? Long.MIN_VALUE : expires[i];
        }
    }

    private final String expiryField;
    private final String scopeField;
    private final String vectorField;
    private final PerSegment<Facts> bySegment = new PerSegment<>();

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
        return bySegment.of(segment, this::load);
    }

    private Facts load(LeafReader segment) {
        try {
            FloatVectorValues vectors = segment.getFloatVectorValues(vectorField);
            Map<String, Scope> scopes = scopes(segment, expires(segment));
            return new Facts(scopes, vectors == null ? null : codes(vectors, segment.maxDoc(), scopes));
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

    private Map<String, Scope> scopes(LeafReader segment, long[] expiresByDoc) throws IOException {
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
            docs = n == docs.length ? docs : Arrays.copyOf(docs, n);
            long[] expires = new long[n];
            for (int i = 0; i < n; i++) {
                expires[i] = expiresByDoc[docs[i]];
            }
            scopes.put(scope.utf8ToString(), new Scope(docs, expires, rows));
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
