package io.cachegate.cache.semantic;

import org.apache.lucene.index.IndexReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.SearcherFactory;

/**
 * Searchers without Lucene's query cache (a search's own filters are never reused) whose new segments' facts
 * (expiry times, scopes) are loaded by the refresh that opens them, not by the first search that meets them.
 */
final class WarmSearchers extends SearcherFactory {

    private final SegmentFacts facts;

    WarmSearchers(SegmentFacts facts) {
        this.facts = facts;
    }

    @Override
    public IndexSearcher newSearcher(IndexReader reader, IndexReader previous) {
        IndexSearcher searcher = new IndexSearcher(reader);
        searcher.setQueryCache(null);
        reader.leaves().forEach(leaf -> facts.of(leaf.reader()));
        return searcher;
    }
}
