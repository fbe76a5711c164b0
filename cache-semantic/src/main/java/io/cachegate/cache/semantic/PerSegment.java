package io.cachegate.cache.semantic;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;

/**
 * Values kept per Lucene segment: computed the first time a segment is asked for and dropped when Lucene closes it
 * (a segment's documents never change, so neither does what is computed from them). Keyed by the segment's core, so
 * a refresh that only changes which documents are live keeps the value.
 */
final class PerSegment<T> {

    private final Map<IndexReader.CacheKey, T> bySegment = new ConcurrentHashMap<>();

    /**
     * The value of {@code segment}, computed by {@code load} outside the map's locks the first time (two threads at once
     * may both compute; the first stored is kept). A reader without a core key has its value computed each time.
     */
    T of(LeafReader segment, Function<LeafReader, T> load) {
        IndexReader.CacheHelper helper = segment.getCoreCacheHelper();
        if (helper == null) {
            return load.apply(segment);
        }
        T known = bySegment.get(helper.getKey());
        if (known != null) {
            return known;
        }
        T loaded = load.apply(segment);
        T first = bySegment.putIfAbsent(helper.getKey(), loaded);
        if (first != null) {
            return first;
        }
        helper.addClosedListener(bySegment::remove);
        return loaded;
    }

    /** Segments with a value kept. */
    int size() {
        return bySegment.size();
    }
}
