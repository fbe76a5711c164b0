package io.cachegate.cache.semantic;

import static io.cachegate.cache.semantic.TestVectors.DIMENSION;
import static io.cachegate.cache.semantic.TestVectors.NOW;
import static io.cachegate.cache.semantic.TestVectors.entry;
import static io.cachegate.cache.semantic.TestVectors.towards;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.codecs.perfield.PerFieldKnnVectorsFormat;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the embedded index stores its vectors: without an HNSW graph by default, with the same search results as an
 * index that builds graphs, and an index written by an earlier build (schema 1, a graph in every segment and the
 * result fields stored rather than doc values) opened with every entry kept and read whole, alone, beside new
 * segments and merged with them.
 */
class LuceneVectorIndexStorageTest {

    private static final String HNSW = "Lucene99HnswVectorsFormat";
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void add_defaultOptions_writesSegmentsWithoutAGraph() throws IOException {
        List<IndexEntry> entries = randomEntries(new Random(1), 300, "s");
        fill(options(dir.resolve("flat")), entries);

        assertThat(vectorFormats(dir.resolve("flat"))).containsOnly(FlatVectorsOnly.NAME);
    }

    // The same documents in the same segments (written by one thread, no merges), one copy with graphs and one without.
    @Test
    void search_segmentsWithoutGraphs_findAndScoreAsSegmentsWithGraphs() throws IOException {
        Random random = new Random(2);
        List<IndexEntry> entries = randomEntries(random, 900, "s");
        writeAs(dir.resolve("flat"), entries, LuceneDocuments.SCHEMA, false);
        writeAs(dir.resolve("graphs"), entries, LuceneDocuments.SCHEMA, true);
        assertThat(vectorFormats(dir.resolve("flat"))).hasSize(9).containsOnly(FlatVectorsOnly.NAME);
        assertThat(vectorFormats(dir.resolve("graphs"))).hasSize(9).containsOnly(HNSW);

        List<float[]> queries = new ArrayList<>();
        for (int q = 0; q < 30; q++) {
            queries.add(q % 2 == 0 ? TestVectors.random(random, DIMENSION)
                    : towards(entries.get(random.nextInt(entries.size())).vectorUnsafe(), q % DIMENSION, 0.1f));
        }
        List<List<String>> withoutGraphs = searchAll(options(dir.resolve("flat")), queries);
        assertThat(withoutGraphs).allSatisfy(found -> assertThat(found).hasSize(10));
        assertThat(withoutGraphs).isEqualTo(searchAll(options(dir.resolve("graphs")), queries));
    }

    @Test
    void search_graphLimitOverSegmentsWithoutGraphs_comparesEveryVector() throws IOException {
        Random random = new Random(3);
        List<IndexEntry> entries = randomEntries(random, 400, "s");
        fill(options(dir.resolve("flat")), entries);

        // Written without graphs, then opened asking for graph searches: each segment falls back to comparing all.
        try (LuceneVectorIndex index = LuceneVectorIndex.open(options(dir.resolve("flat")).withExactSearchLimit(0))) {
            for (int q = 0; q < 10; q++) {
                float[] query = TestVectors.random(random, DIMENSION);
                assertThat(keys(index.search("s", query, 5, NOW).join()))
                        .containsExactlyElementsOf(nearest(inScope(entries, "s"), query, 5));
            }
        }
    }

    @Test
    void open_indexOfSchema1WithGraphs_keepsEveryEntryAndWritesOnWithoutGraphs() throws IOException {
        Path path = dir.resolve("old");
        Random random = new Random(4);
        List<IndexEntry> old = randomEntries(random, 500, "s");
        writeAsSchema1(path, old);
        assertThat(vectorFormats(path)).containsOnly(HNSW);

        List<IndexEntry> added = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            added.add(entry("new-" + i, "s", TestVectors.random(random, DIMENSION)));
        }
        try (LuceneVectorIndex index = LuceneVectorIndex.open(options(path))) {
            assertThat(index.size().join()).isEqualTo(old.size());
            assertNearestFound(index, old, random);
            added.forEach(e -> index.add(e).join());
        }
        assertThat(vectorFormats(path)).contains(HNSW, FlatVectorsOnly.NAME);
        assertThat(commitData(path)).containsEntry(LuceneDocuments.META_SCHEMA, LuceneDocuments.SCHEMA);

        List<IndexEntry> all = new ArrayList<>(old);
        all.addAll(added);
        try (LuceneVectorIndex index = LuceneVectorIndex.open(options(path))) {
            assertThat(index.size().join()).isEqualTo(all.size());
            assertNearestFound(index, all, random);
        }

        // Merged into one segment, the old graph is gone and nothing else.
        try (Directory directory = FSDirectory.open(path);
             IndexWriter writer = new IndexWriter(directory,
                     new IndexWriterConfig().setCodec(LuceneDocuments.codec(false)))) {
            writer.forceMerge(1);
        }
        assertThat(vectorFormats(path)).containsExactly(FlatVectorsOnly.NAME);
        try (LuceneVectorIndex index = LuceneVectorIndex.open(options(path))) {
            assertThat(index.size().join()).isEqualTo(all.size());
            assertNearestFound(index, all, random);
        }
    }

    @Test
    void open_indexOfAnUnknownSchema_recreatesItEmpty() throws IOException {
        Path path = dir.resolve("future");
        writeAs(path, randomEntries(new Random(5), 10, "s"), "4", true);

        try (LuceneVectorIndex index = LuceneVectorIndex.open(options(path))) {
            assertThat(index.size().join()).isZero();
        }
    }

    private static LuceneIndexOptions options(Path path) {
        return LuceneIndexOptions.of(path, "test-model", DIMENSION);
    }

    private static List<IndexEntry> randomEntries(Random random, int n, String scope) {
        List<IndexEntry> entries = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            entries.add(entry("e" + i, i % 5 == 0 ? "other" : scope, TestVectors.random(random, DIMENSION)));
        }
        return entries;
    }

    /** Adds in rounds of 100, each refreshed into its own segment; closing commits. */
    private static void fill(LuceneIndexOptions options, List<IndexEntry> entries) throws IOException {
        try (LuceneVectorIndex index = LuceneVectorIndex.open(options)) {
            for (int from = 0; from < entries.size(); from += 100) {
                List<CompletableFuture<Void>> adds = new ArrayList<>();
                entries.subList(from, Math.min(entries.size(), from + 100)).forEach(e -> adds.add(index.add(e)));
                CompletableFuture.allOf(adds.toArray(CompletableFuture[]::new))
                        .orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();
                index.size().join();
            }
        }
    }

    /** Every query's results, keys and similarities, on a freshly opened copy of the index. */
    private static List<List<String>> searchAll(LuceneIndexOptions options, List<float[]> queries) throws IOException {
        List<List<String>> results = new ArrayList<>();
        try (LuceneVectorIndex index = LuceneVectorIndex.open(options)) {
            for (float[] q : queries) {
                results.add(index.search("s", q, 10, NOW).join().stream()
                        .map(n -> n.entryKey() + "@" + n.similarity()).toList());
            }
        }
        return results;
    }

    /** A query next to an entry finds it first, at the similarity of its stored vector. */
    private static void assertNearestFound(LuceneVectorIndex index, List<IndexEntry> entries, Random random) {
        for (int q = 0; q < 60; q++) {
            IndexEntry target = entries.get(random.nextInt(entries.size()));
            float[] query = towards(target.vectorUnsafe(), q % DIMENSION, 0.05f);
            List<Neighbour> found = index.search(target.scope(), query, 10, NOW).join();
            assertThat(found).first().satisfies(n -> {
                assertThat(n.entryKey()).isEqualTo(target.entryKey());
                assertThat(n.similarity()).isCloseTo(dot(target.vectorUnsafe(), query), within(1e-5f));
                assertThat(n.text()).isEqualTo(target.text());
                assertThat(n.createdAtMillis()).isEqualTo(target.createdAtMillis());
                assertThat(n.expiresAtMillis()).isEqualTo(target.expiresAtMillis());
            });
        }
    }

    /** The keys of {@code entries} (one scope's) nearest to {@code query}, by comparing every vector. */
    private static List<String> nearest(List<IndexEntry> entries, float[] query, int k) {
        return entries.stream()
                .sorted((a, b) -> Float.compare(dot(b.vectorUnsafe(), query), dot(a.vectorUnsafe(), query)))
                .limit(k).map(IndexEntry::entryKey).toList();
    }

    private static List<IndexEntry> inScope(List<IndexEntry> entries, String scope) {
        return entries.stream().filter(e -> e.scope().equals(scope)).toList();
    }

    private static List<String> keys(List<Neighbour> found) {
        return found.stream().map(Neighbour::entryKey).toList();
    }

    private static float dot(float[] a, float[] b) {
        float sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += a[i] * b[i];
        }
        return sum;
    }

    /** As the builds before schema 2 wrote an index: Lucene's default codec, a graph in every segment. */
    private static void writeAsSchema1(Path path, List<IndexEntry> entries) throws IOException {
        writeAs(path, entries, "1", true);
    }

    /**
     * One segment per 100 entries, in order, never merged; documents as {@code schema} wrote them (before 3, the
     * result fields stored and no doc values of the key and text).
     */
    private static void writeAs(Path path, List<IndexEntry> entries, String schema, boolean graphs) throws IOException {
        IndexWriterConfig config = new IndexWriterConfig().setCodec(LuceneDocuments.codec(graphs))
                .setMergePolicy(NoMergePolicy.INSTANCE);
        try (Directory directory = FSDirectory.open(path); IndexWriter writer = new IndexWriter(directory, config)) {
            for (int from = 0; from < entries.size(); from += 100) {
                for (IndexEntry e : entries.subList(from, Math.min(entries.size(), from + 100))) {
                    writer.addDocument(schema.compareTo("3") < 0 ? beforeSchema3(e) : LuceneDocuments.of(e));
                }
                writer.flush();
            }
            writer.setLiveCommitData(Map.of(LuceneDocuments.META_MODEL, "test-model",
                    LuceneDocuments.META_DIMENSION, Integer.toString(DIMENSION),
                    LuceneDocuments.META_SCHEMA, schema).entrySet());
            writer.commit();
        }
    }

    /** An entry's document as builds before schema 3 wrote it. */
    private static Document beforeSchema3(IndexEntry e) {
        Document doc = LuceneDocuments.of(e);
        for (String field : List.of(LuceneDocuments.KEY, LuceneDocuments.KEY_VALUE, LuceneDocuments.TEXT_VALUE,
                LuceneDocuments.CREATED, LuceneDocuments.EXPIRES)) {
            doc.removeFields(field);
        }
        doc.add(new StringField(LuceneDocuments.KEY, e.entryKey(), Field.Store.YES));
        doc.add(new StoredField(LuceneDocuments.TEXT, e.text()));
        doc.add(new LongField(LuceneDocuments.CREATED, e.createdAtMillis(), Field.Store.YES));
        doc.add(new LongField(LuceneDocuments.EXPIRES, e.expiresAtMillis(), Field.Store.YES));
        return doc;
    }

    /** The vector format named in each segment of the index's last commit. */
    private static List<String> vectorFormats(Path path) throws IOException {
        try (Directory directory = FSDirectory.open(path); DirectoryReader reader = DirectoryReader.open(directory)) {
            List<String> formats = new ArrayList<>();
            for (LeafReaderContext leaf : reader.leaves()) {
                formats.add(leaf.reader().getFieldInfos().fieldInfo(LuceneDocuments.VECTOR)
                        .getAttribute(PerFieldKnnVectorsFormat.PER_FIELD_FORMAT_KEY));
            }
            return formats;
        }
    }

    private static Map<String, String> commitData(Path path) throws IOException {
        try (Directory directory = FSDirectory.open(path)) {
            return SegmentInfos.readLatestCommit(directory).getUserData();
        }
    }
}
