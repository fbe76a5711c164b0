package io.cachegate.cache.semantic;

import static io.cachegate.cache.semantic.LuceneDocuments.CREATED;
import static io.cachegate.cache.semantic.LuceneDocuments.EXPIRES;
import static io.cachegate.cache.semantic.LuceneDocuments.KEY_VALUE;
import static io.cachegate.cache.semantic.LuceneDocuments.TEXT_VALUE;

import java.io.IOException;
import java.util.List;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.search.IndexSearcher;

/**
 * Reads what a search result returns of its document (key, text, creation and expiry times): from doc values, which a
 * result reads on their own, where the document was written with them (schema 3 on); from its stored fields, through
 * {@link ResultFields}, where it was written before. A stored field is read by decompressing the block of documents
 * it is in, for each of the k results of every search.
 */
final class ResultReader {

    private final ResultFields stored = new ResultFields();

    /** The result for {@code doc} (an index-wide id of {@code searcher}'s reader), Lucene's score turned to a cosine. */
    Neighbour neighbour(IndexSearcher searcher, int doc, float score) throws IOException {
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
        LeafReader segment = leaf.reader();
        int local = doc - leaf.docBase;
        float cosine = 2 * score - 1;  // Lucene's DOT_PRODUCT score is (1 + dot) / 2
        BinaryDocValues keys = segment.getBinaryDocValues(KEY_VALUE);
        if (keys == null || !keys.advanceExact(local)) {
            return LuceneDocuments.storedNeighbour(
                    stored.document(searcher, doc, LuceneDocuments.STORED_RESULT_FIELDS), cosine);
        }
        BinaryDocValues texts = DocValues.getBinary(segment, TEXT_VALUE);
        String text = texts.advanceExact(local) ? texts.binaryValue().utf8ToString() : "";
        return new Neighbour(keys.binaryValue().utf8ToString(), cosine, text,
                time(segment, CREATED, local), time(segment, EXPIRES, local));
    }

    private static long time(LeafReader segment, String field, int doc) throws IOException {
        SortedNumericDocValues values = DocValues.getSortedNumeric(segment, field);
        if (!values.advanceExact(doc)) {
            throw new IllegalStateException("a semantic index document without " + field);
        }
        return values.nextValue();
    }
}
