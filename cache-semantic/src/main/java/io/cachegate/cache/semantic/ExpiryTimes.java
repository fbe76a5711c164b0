package io.cachegate.cache.semantic;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.search.DocIdSetIterator;

/**
 * Each segment's expiry times as an array indexed by document, loaded once per segment (when a refresh opens it)
 * and dropped when Lucene closes it: a graph search tests entries in no particular order, which doc values cannot
 * answer, and a per-search filter bit set over the whole segment is what made large scopes slow. 8 bytes an entry
 * (0.8 MB per 100,000); a segment's expiry times never change, as Lucene never rewrites a segment's documents.
 */
final class ExpiryTimes {

    private final String field;
    private final Map<IndexReader.CacheKey, long[]> bySegment = new ConcurrentHashMap<>();

    ExpiryTimes(String field) {
        this.field = field;
    }

    /** True when an entry expiring at {@code expiresAt} may be returned at {@code nowMillis}; never-expiring always. */
    static boolean live(long expiresAt, long nowMillis) {
        return expiresAt > nowMillis || expiresAt == Long.MAX_VALUE;
    }

    /** The expiry time of every document of {@code segment}; a document without one never matches. */
    long[] of(LeafReader segment) {
        IndexReader.CacheHelper helper = segment.getCoreCacheHelper();
        if (helper == null) {
            return load(segment);
        }
        long[] known = bySegment.get(helper.getKey());
        if (known != null) {
            return known;
        }
        long[] loaded = load(segment);
        if (bySegment.putIfAbsent(helper.getKey(), loaded) == null) {
            helper.addClosedListener(bySegment::remove);
        }
        return loaded;
    }

    int segments() {
        return bySegment.size();
    }

    private long[] load(LeafReader segment) {
        long[] expires = new long[segment.maxDoc()];
        java.util.Arrays.fill(expires, Long.MIN_VALUE);
        try {
            SortedNumericDocValues values = DocValues.getSortedNumeric(segment, field);
            for (int doc = values.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = values.nextDoc()) {
                expires[doc] = values.nextValue();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + field + " of a semantic index segment", e);
        }
        return expires;
    }
}
