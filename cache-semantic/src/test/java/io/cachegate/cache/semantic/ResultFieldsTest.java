package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.Test;

/** Stored fields read with the readers kept per segment: right across segments and threads, dropped on close. */
class ResultFieldsTest {

    private static final int PER_SEGMENT = 300;

    @Test
    void document_readsEverySegment_keepsAReaderPerSegment_dropsThemWhenTheSegmentsClose() throws Exception {
        ResultFields fields = new ResultFields();
        try (ByteBuffersDirectory dir = new ByteBuffersDirectory()) {
            write(dir, 3);
            DirectoryReader reader = DirectoryReader.open(dir);
            IndexSearcher searcher = new IndexSearcher(reader);
            assertThat(reader.leaves()).hasSize(3);

            for (int round = 0; round < 2; round++) { // the second round reads with the readers kept by the first
                for (int doc = 0; doc < 3 * PER_SEGMENT; doc += 7) {
                    Document d = fields.document(searcher, doc, Set.of("key", "text"));
                    assertThat(d.get("key")).isEqualTo("k" + doc);
                    assertThat(d.get("text")).isEqualTo("text of " + doc);
                    assertThat(d.getField("other")).as("only the fields asked for").isNull();
                }
            }
            assertThat(fields.segments()).isEqualTo(3);

            reader.close();
            assertThat(fields.segments()).as("dropped with their segments").isZero();
        }
    }

    @Test
    void document_fromManyThreadsAtOnce_eachReadsItsOwnDocument() throws Exception {
        ResultFields fields = new ResultFields();
        ExecutorService threads = Executors.newFixedThreadPool(2 * ResultFields.KEPT_PER_SEGMENT);
        try (ByteBuffersDirectory dir = new ByteBuffersDirectory()) {
            write(dir, 2);
            try (DirectoryReader reader = DirectoryReader.open(dir)) {
                IndexSearcher searcher = new IndexSearcher(reader);
                List<Future<Boolean>> reads = new ArrayList<>();
                for (int t = 0; t < 2 * ResultFields.KEPT_PER_SEGMENT; t++) {
                    int first = t;
                    reads.add(threads.submit(() -> {
                        for (int doc = first; doc < 2 * PER_SEGMENT; doc += 3) {
                            if (!fields.document(searcher, doc, Set.of("key")).get("key").equals("k" + doc)) {
                                return false;
                            }
                        }
                        return true;
                    }));
                }
                for (Future<Boolean> read : reads) {
                    assertThat(read.get()).isTrue();
                }
            }
        } finally {
            threads.shutdownNow();
        }
    }

    /** {@code segments} segments of {@link #PER_SEGMENT} documents, keys numbered across them. */
    private static void write(ByteBuffersDirectory dir, int segments) throws Exception {
        try (IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig().setMergePolicy(NoMergePolicy.INSTANCE))) {
            for (int s = 0; s < segments; s++) {
                for (int i = 0; i < PER_SEGMENT; i++) {
                    int n = s * PER_SEGMENT + i;
                    Document doc = new Document();
                    doc.add(new StringField("key", "k" + n, Field.Store.YES));
                    doc.add(new StoredField("text", "text of " + n));
                    doc.add(new StoredField("other", "x".repeat(200)));
                    writer.addDocument(doc);
                }
                writer.commit(); // one segment each
            }
        }
    }
}
