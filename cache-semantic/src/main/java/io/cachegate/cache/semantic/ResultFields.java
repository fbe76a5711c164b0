package io.cachegate.cache.semantic;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.IndexSearcher;

/**
 * Reads the stored fields of a search's results written before schema 3 (whose key and text are not doc values,
 * {@link ResultReader}), with readers kept per segment between searches. A stored-fields
 * reader opened for one search allocates its block buffers afresh (tens of kilobytes a block: 59% of all a search
 * allocated at 100,000 entries, each young collection a pause of the searches, docs/benchmarks.md); one kept for the
 * segment's life grows them once. A reader is used by one thread at a time, so each segment keeps a small
 * stack of them: a search borrows one and gives it back, and at most {@link #KEPT_PER_SEGMENT} are kept (more
 * threads at once read with readers of their own, dropped after). Dropped with the segment when Lucene closes it.
 */
final class ResultFields {

    /** Readers kept a segment: the index's threads and a spare, so a segment holds a few blocks' buffers at most. */
    static final int KEPT_PER_SEGMENT = 4;

    private final PerSegment<Kept> bySegment = new PerSegment<>();

    /** The readers kept for one segment, and how many. */
    private static final class Kept {
        final ConcurrentLinkedQueue<StoredFields> idle = new ConcurrentLinkedQueue<>();
        final AtomicInteger size = new AtomicInteger();
    }

    /** The {@code fields} of {@code doc} (an index-wide id of {@code searcher}'s reader). */
    Document document(IndexSearcher searcher, int doc, Set<String> fields) throws IOException {
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
        LeafReader segment = leaf.reader();
        Kept kept = bySegment.of(segment, s -> new Kept());
        StoredFields reader = kept.idle.poll();
        if (reader == null) {
            reader = segment.storedFields();
        } else {
            kept.size.decrementAndGet();
        }
        try {
            return reader.document(doc - leaf.docBase, fields);
        } finally {
            if (kept.size.incrementAndGet() <= KEPT_PER_SEGMENT) {
                kept.idle.offer(reader);
            } else {
                kept.size.decrementAndGet();
            }
        }
    }

    /** Segments with readers kept (for tests). */
    int segments() {
        return bySegment.size();
    }
}
