package io.cachegate.cache.semantic;

import java.util.List;

/** A blocking batch embedder, the unit {@link MicroBatchingEmbedder} schedules; tests substitute a gated one. */
interface EmbedderModel extends AutoCloseable {

    float[][] embed(List<String> texts) throws Exception;

    int dimension();

    String modelId();

    @Override
    void close();
}
