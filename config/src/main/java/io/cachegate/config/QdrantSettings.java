package io.cachegate.config;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Connection to a Qdrant server (gRPC port), used when the semantic store is {@code qdrant}.
 *
 * @param tls connect over TLS (required by Qdrant Cloud)
 * @param timeout the deadline of every call; a late answer is a semantic miss
 */
public record QdrantSettings(String host, int port, String collection, Optional<String> apiKey, boolean tls,
                             Duration timeout) {

    public QdrantSettings {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(collection, "collection");
        Objects.requireNonNull(apiKey, "apiKey");
        Objects.requireNonNull(timeout, "timeout");
    }

    /** Every key of {@code cache.semantic.qdrant} at its default (see {@code CacheKeys}). */
    public static QdrantSettings defaults() {
        return new QdrantSettings(CacheKeys.QDRANT_HOST.fallback(), CacheKeys.QDRANT_PORT.fallback(),
                CacheKeys.COLLECTION.fallback(), CacheKeys.QDRANT_API_KEY.fallback(), CacheKeys.TLS.fallback(),
                CacheKeys.QDRANT_TIMEOUT.fallback());
    }

    @Override
    public String toString() {
        return "QdrantSettings[host=" + host + ", port=" + port + ", collection=" + collection + ", apiKey="
                + (apiKey.isPresent() ? "<redacted>" : "none") + ", tls=" + tls + ", timeout=" + timeout + "]";
    }
}
