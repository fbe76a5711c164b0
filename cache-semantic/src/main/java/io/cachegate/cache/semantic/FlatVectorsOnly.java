package io.cachegate.cache.semantic;

import java.io.IOException;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.KnnVectorsReader;
import org.apache.lucene.codecs.KnnVectorsWriter;
import org.apache.lucene.codecs.hnsw.FlatVectorScorerUtil;
import org.apache.lucene.codecs.lucene99.Lucene99FlatVectorsFormat;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.index.SegmentWriteState;

/**
 * The vector field's format when no HNSW graph is wanted: Lucene's own flat vectors (the {@code .vec} file that the
 * HNSW format writes beside its graph), without the graph. {@link ScopeSearch} reads vectors by document and scans
 * {@link SignCodes}; building a graph on every flush and rebuilding it on every merge was most of an add's cost.
 * Public with a no-argument constructor, and named in {@code META-INF/services}, because Lucene finds a segment's
 * per-field format by the name written in it when it opens the segment.
 */
public final class FlatVectorsOnly extends KnnVectorsFormat {

    /** Written into each segment's field infos; renaming it makes the segments already written unreadable. */
    public static final String NAME = "CachegateFlatVectors99";

    private final KnnVectorsFormat flat =
            new Lucene99FlatVectorsFormat(FlatVectorScorerUtil.getLucene99FlatVectorsScorer());

    public FlatVectorsOnly() {
        super(NAME);
    }

    @Override
    public KnnVectorsWriter fieldsWriter(SegmentWriteState state) throws IOException {
        return flat.fieldsWriter(state);
    }

    @Override
    public KnnVectorsReader fieldsReader(SegmentReadState state) throws IOException {
        return flat.fieldsReader(state);
    }

    @Override
    public int getMaxDimensions(String fieldName) {
        return flat.getMaxDimensions(fieldName);
    }

    @Override
    public String toString() {
        return NAME + "(" + flat + ")";
    }
}
