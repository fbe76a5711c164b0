package io.cachegate.gateway.api;

import io.cachegate.cache.exact.Dialect;

/**
 * The OpenAI endpoints the gateway understands, each with the {@link Dialect} of its API; anything else under /v1
 * passes through.
 */
public enum Endpoint {
    CHAT_COMPLETIONS("/v1/chat/completions", "chat", Dialect.CHAT),
    COMPLETIONS("/v1/completions", "completions", Dialect.COMPLETIONS),
    EMBEDDINGS("/v1/embeddings", "embeddings", Dialect.EMBEDDINGS),
    RESPONSES("/v1/responses", "responses", Dialect.RESPONSES),
    MODELS("/v1/models", "models", null),
    PASSTHROUGH(null, "passthrough", null);

    private final String path;
    private final String metricName;
    private final Dialect dialect;

    Endpoint(String path, String metricName, Dialect dialect) {
        this.path = path;
        this.metricName = metricName;
        this.dialect = dialect;
    }

    /** The endpoint for a request path without its query string; PASSTHROUGH for other /v1 paths, null outside /v1. */
    public static Endpoint forPath(String path) {
        for (Endpoint e : values()) {
            if (e.path != null && e.path.equals(path)) {
                return e;
            }
        }
        return path.startsWith("/v1/") ? PASSTHROUGH : null;
    }

    public String path() {
        return path;
    }

    /** The API whose requests this endpoint takes; null for the model list and pass-through, which are not parsed. */
    public Dialect dialect() {
        return dialect;
    }

    /** A short, bounded name for metric tags. */
    public String metricName() {
        return metricName;
    }
}
