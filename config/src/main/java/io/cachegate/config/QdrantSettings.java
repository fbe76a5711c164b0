package io.cachegate.config;

import java.util.Objects;
import java.util.Optional;

/** Connection to a Qdrant server (gRPC port), used when the semantic store is {@code qdrant}. */
public record QdrantSettings(String host, int port, String collection, Optional<String> apiKey) {

    public QdrantSettings {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(collection, "collection");
        Objects.requireNonNull(apiKey, "apiKey");
    }

    /** {@code 127.0.0.1:6334}, collection {@code cachegate}, no API key. */
    public static QdrantSettings defaults() {
        return new QdrantSettings("127.0.0.1", 6334, "cachegate", Optional.empty());
    }

    @Override
    public String toString() {
        return "QdrantSettings[host=" + host + ", port=" + port + ", collection=" + collection + ", apiKey="
                + (apiKey.isPresent() ? "<redacted>" : "none") + "]";
    }
}
