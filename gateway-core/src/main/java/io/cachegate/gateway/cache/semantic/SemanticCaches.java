package io.cachegate.gateway.cache.semantic;

import io.cachegate.cache.semantic.LuceneIndexOptions;
import io.cachegate.cache.semantic.LuceneVectorIndex;
import io.cachegate.cache.semantic.MicroBatchingEmbedder;
import io.cachegate.cache.semantic.QdrantIndexOptions;
import io.cachegate.cache.semantic.QdrantVectorIndex;
import io.cachegate.cache.semantic.VectorIndex;
import io.cachegate.config.QdrantSettings;
import io.cachegate.config.SemanticCacheSettings;
import io.cachegate.config.SemanticStore;
import io.cachegate.config.Ticker;
import io.cachegate.gateway.metrics.SemanticMetrics;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/** Builds the semantic layer a policy asks for: the embedder, then the embedded or Qdrant index for its model. */
public final class SemanticCaches {

    private SemanticCaches() {
    }

    /**
     * Loads the model and opens the index. Blocks (model load, disk): call at start-up, never on an event loop.
     * A Qdrant server that is down does not stop the gateway: its lookups fail open until it answers.
     */
    public static SemanticCache open(SemanticCacheSettings settings, SemanticMetrics metrics, Ticker ticker) {
        MicroBatchingEmbedder embedder = MicroBatchingEmbedder.start(settings.embedder());
        try {
            VectorIndex index = switch (settings.store()) {
                case EMBEDDED -> LuceneVectorIndex.open(LuceneIndexOptions
                        .of(indexDirectory(settings), embedder.modelId(), embedder.dimension())
                        .withMaxEntries(settings.maxEntries()));
                case QDRANT -> QdrantVectorIndex.connect(qdrant(settings.qdrant(), embedder));
            };
            SemanticCache layer = new SemanticCache(settings, embedder, index, metrics, ticker);
            if (settings.store() == SemanticStore.EMBEDDED) {
                layer.keepEvidenceIn(evidenceFile(settings));
            }
            LuceneVectorIndex lucene = index instanceof LuceneVectorIndex l ? l : null;
            metrics.watch(layer::indexSizeLastKnown, layer::pendingWrites, () -> lucene == null ? 0 : lucene.evictions(),
                    () -> embedder.stats().batches(), () -> embedder.stats().texts(),
                    () -> embedder.stats().queued(), () -> embedder.stats().rejections());
            return layer;
        } catch (IOException e) {
            embedder.close();
            throw new UncheckedIOException("cannot open the semantic index under " + settings.path(), e);
        } catch (RuntimeException e) {
            embedder.close();
            throw e;
        }
    }

    /** The Lucene index lives in its own directory under {@code cache.semantic.path}. */
    static Path indexDirectory(SemanticCacheSettings settings) {
        return Path.of(settings.path()).resolve("semantic-index");
    }

    /**
     * The error budget's evidence beside the index it judged: both outlive a restart, and a new model starts both
     * afresh (the file names the model it was written for).
     */
    static Path evidenceFile(SemanticCacheSettings settings) {
        return Path.of(settings.path()).resolve("error-budget-evidence");
    }

    private static QdrantIndexOptions qdrant(QdrantSettings q, MicroBatchingEmbedder embedder) {
        QdrantIndexOptions options = QdrantIndexOptions.of(q.host(), q.port(), q.collection(), embedder.modelId(),
                embedder.dimension()).withTls(q.tls()).withTimeout(q.timeout());
        return q.apiKey().isPresent() ? options.withApiKey(q.apiKey().get()) : options;
    }
}
