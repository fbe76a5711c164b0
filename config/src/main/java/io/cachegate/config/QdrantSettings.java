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

    /** {@code 127.0.0.1:6334}, collection {@code cachegate}, no API key, plaintext, 200 ms per call. */
    public static QdrantSettings defaults() {
        return new QdrantSettings("127.0.0.1", 6334, "cachegate", Optional.empty(), false, Duration.ofMillis(200));
    }

    @Override
    public String toString() {
        return "QdrantSettings[host=" + host + ", port=" + port + ", collection=" + collection + ", apiKey="
                + (apiKey.isPresent() ? "<redacted>" : "none") + ", tls=" + tls + ", timeout=" + timeout + "]";
    }
}
