package io.cachegate.config;

import java.time.Duration;
import java.util.Objects;

/**
 * The semantic cache: a nearest-neighbour index of embedded prompts pointing at exact cache entries.
 *
 * @param threshold the minimum similarity for a hit, in (0, 1]
 * @param model the embedding model; {@code bundled} is the model shipped in the jar
 * @param path directory of the embedded index
 */
public record SemanticCacheSettings(boolean enabled, SemanticStore store, double threshold, Duration ttl,
                                    String model, String path, QdrantSettings qdrant) {

    public SemanticCacheSettings {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(ttl, "ttl");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(qdrant, "qdrant");
    }

    /** Disabled, embedded under {@code ./data}, threshold 0.92, 24h, bundled model. */
    public static SemanticCacheSettings defaults() {
        return new SemanticCacheSettings(false, SemanticStore.EMBEDDED, 0.92, Duration.ofHours(24), "bundled",
                "./data", QdrantSettings.defaults());
    }
}
