package io.cachegate.cache.semantic;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Settings of the Qdrant index. {@link #of(String, int, String, String, int)} gives the defaults (plaintext,
 * no API key, 2 s per call); the {@code with…} methods return changed copies.
 *
 * @param timeout the deadline of every call to Qdrant; a late answer is a semantic miss
 */
public record QdrantIndexOptions(String host, int port, boolean useTls, Optional<String> apiKey, String collection,
                                 String modelId, int dimension, Duration timeout) {

    public QdrantIndexOptions {
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException("host must not be empty");
        }
        if (port <= 0 || port > 65535) {
            throw new IllegalArgumentException("port must be in 1..65535, was " + port);
        }
        Objects.requireNonNull(apiKey, "apiKey");
        if (collection == null || collection.isEmpty()) {
            throw new IllegalArgumentException("collection must not be empty");
        }
        if (modelId == null || modelId.isEmpty()) {
            throw new IllegalArgumentException("modelId must not be empty");
        }
        if (dimension <= 0 || dimension > 65536) {
            throw new IllegalArgumentException("dimension must be in 1..65536, was " + dimension);
        }
        if (timeout == null || timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
    }

    public static QdrantIndexOptions of(String host, int port, String collection, String modelId, int dimension) {
        return new QdrantIndexOptions(host, port, false, Optional.empty(), collection, modelId, dimension, Duration.ofSeconds(2));
    }

    public QdrantIndexOptions withTls(boolean value) {
        return new QdrantIndexOptions(host, port, value, apiKey, collection, modelId, dimension, timeout);
    }

    public QdrantIndexOptions withApiKey(String value) {
        return new QdrantIndexOptions(host, port, useTls, Optional.of(value), collection, modelId, dimension, timeout);
    }

    public QdrantIndexOptions withTimeout(Duration value) {
        return new QdrantIndexOptions(host, port, useTls, apiKey, collection, modelId, dimension, value);
    }

    // The API key stays out of logs.
    @Override
    public String toString() {
        return "QdrantIndexOptions[host=" + host + ", port=" + port + ", useTls=" + useTls
                + ", apiKey=" + (apiKey.isPresent() ? "***" : "none") + ", collection=" + collection
                + ", modelId=" + modelId + ", dimension=" + dimension + ", timeout=" + timeout + "]";
    }
}
