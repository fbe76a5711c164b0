package io.cachegate.cache.semantic;

import java.util.List;
import java.util.Set;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.lucene912.Lucene912Codec;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.LongField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.AutomatonQuery;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.automaton.Automata;
import org.apache.lucene.util.automaton.Automaton;
import org.apache.lucene.util.automaton.Operations;

/**
 * The embedded index's schema: the fields of an entry's document, how its vectors are stored, the commit metadata that
 * says which model built the index, and the queries over them (purges, the label filter), apart from how
 * {@link LuceneVectorIndex} writes, refreshes and searches.
 */
final class LuceneDocuments {

    static final String KEY = "entry_key";
    static final String SCOPE = "scope";
    static final String TENANT = "tenant";
    static final String MODEL_VERSION = "model_version";
    static final String TAG = "tag";
    static final String LABEL = "label";
    static final String USER = "user";
    static final String VECTOR = "vector";
    static final String TEXT = "text";
    static final String CREATED = "created_at";
    static final String EXPIRES = "expires_at";
    /** The key and the text as doc values, from schema 3 on: what a search result reads. */
    static final String KEY_VALUE = "entry_key_value";
    static final String TEXT_VALUE = "text_value";
    /** What a result reads of a document written before schema 3, which has no doc values of its key and text. */
    static final Set<String> STORED_RESULT_FIELDS = Set.of(KEY, TEXT, CREATED, EXPIRES);

    // Commit user data: an index written for another model, dimension or field layout is recreated.
    static final String META_MODEL = "cachegate.model";
    static final String META_DIMENSION = "cachegate.dimension";
    static final String META_SCHEMA = "cachegate.schema";
    /**
     * 3: a result's key and text are doc values, not stored fields (reading the k results decompressed a block of
     * stored fields each, a sixth of a search's CPU). 2: vectors may be stored without a graph
     * ({@link FlatVectorsOnly}). A build that knows only an earlier schema cannot read what this one writes (schema 2
     * would find no stored key and fail its searches); seeing "3" it recreates the index instead, so a rollback costs the cached
     * vectors, not the gateway.
     */
    static final String SCHEMA = "3";
    /**
     * Schemas this build opens as they are: 1 differs from 2 only in that every segment has an HNSW graph, and the
     * documents of both have their result fields stored, which {@link ResultReader} reads where doc values are absent.
     */
    static final Set<String> READABLE_SCHEMAS = Set.of("1", "2", SCHEMA);

    private LuceneDocuments() {
    }

    /** The document of an entry: what a search filters on, what it returns, and what eviction sorts by. */
    static Document of(IndexEntry entry) {
        Document doc = new Document();
        doc.add(new StringField(KEY, entry.entryKey(), Field.Store.NO));
        doc.add(new BinaryDocValuesField(KEY_VALUE, new BytesRef(entry.entryKey())));
        doc.add(new StringField(SCOPE, entry.scope(), Field.Store.NO));
        doc.add(new StringField(TENANT, entry.tenant(), Field.Store.NO));
        doc.add(new StringField(MODEL_VERSION, entry.modelVersion(), Field.Store.NO));
        for (String tag : entry.tags()) {
            doc.add(new StringField(TAG, tag, Field.Store.NO));
        }
        for (String label : entry.labels()) {
            doc.add(new StringField(LABEL, label, Field.Store.NO));
        }
        if (!entry.userDigest().isEmpty()) {
            doc.add(new StringField(USER, entry.userDigest(), Field.Store.NO));
        }
        doc.add(new KnnFloatVectorField(VECTOR, entry.vectorUnsafe(), VectorSimilarityFunction.DOT_PRODUCT));
        doc.add(new BinaryDocValuesField(TEXT_VALUE, new BytesRef(entry.text())));
        // Points + doc values: range queries for TTL, the sort that finds the oldest entries to evict, and results.
        doc.add(new LongField(CREATED, entry.createdAtMillis(), Field.Store.NO));
        doc.add(new LongField(EXPIRES, entry.expiresAtMillis(), Field.Store.NO));
        return doc;
    }

    /**
     * The codec new segments are written with: Lucene's default, with the vector field's HNSW graph only when
     * {@code graphs} (a search may walk it); otherwise {@link FlatVectorsOnly}. Segments written either way stay
     * readable by both: each names its own vector format.
     */
    static Codec codec(boolean graphs) {
        if (graphs) {
            return Codec.getDefault();
        }
        KnnVectorsFormat flat = new FlatVectorsOnly();
        // Lucene's current default codec with one field's format changed (a Lucene upgrade names its new default here).
        return new Lucene912Codec() {
            @Override
            public KnnVectorsFormat getKnnVectorsFormatForField(String field) {
                return VECTOR.equals(field) ? flat : super.getKnnVectorsFormatForField(field);
            }
        };
    }

    /** The search result a document written before schema 3 stands for, from its {@link #STORED_RESULT_FIELDS}. */
    static Neighbour storedNeighbour(Document doc, float cosine) {
        return new Neighbour(doc.get(KEY), cosine, doc.get(TEXT),
                doc.getField(CREATED).numericValue().longValue(), doc.getField(EXPIRES).numericValue().longValue());
    }

    static Query purgeQuery(IndexPurge purge) {
        if (purge.all()) {
            return new MatchAllDocsQuery();
        }
        BooleanQuery.Builder query = new BooleanQuery.Builder();
        purge.tenant().ifPresent(t -> query.add(new TermQuery(new Term(TENANT, t)), BooleanClause.Occur.FILTER));
        purge.modelVersion().ifPresent(m -> query.add(new TermQuery(new Term(MODEL_VERSION, m)), BooleanClause.Occur.FILTER));
        purge.tag().ifPresent(t -> query.add(new TermQuery(new Term(TAG, t)), BooleanClause.Occur.FILTER));
        purge.user().ifPresent(u -> query.add(new TermQuery(new Term(USER, u)), BooleanClause.Occur.FILTER));
        return query.build();
    }

    /**
     * Entries with a label outside {@code held}: an automaton over the label terms accepting every string but the
     * held ones. Excluding them inside the k-NN search leaves exactly the entries whose labels are all held.
     */
    static Query unreadable(Set<String> held) {
        List<BytesRef> sorted = held.stream().map(BytesRef::new).sorted().toList();
        Automaton others = sorted.isEmpty() ? Automata.makeAnyString()
                : Operations.minus(Automata.makeAnyString(), Automata.makeStringUnion(sorted),
                        Operations.DEFAULT_DETERMINIZE_WORK_LIMIT);
        return new AutomatonQuery(new Term(LABEL), others);
    }
}
