package io.cachegate.gateway.api;

/** The OpenAI endpoints the gateway understands; anything else under /v1 passes through. */
public enum Endpoint {
    CHAT_COMPLETIONS("/v1/chat/completions", "chat"),
    COMPLETIONS("/v1/completions", "completions"),
    EMBEDDINGS("/v1/embeddings", "embeddings"),
    RESPONSES("/v1/responses", "responses"),
    MODELS("/v1/models", "models"),
    PASSTHROUGH(null, "passthrough");

    private final String path;
    private final String metricName;

    Endpoint(String path, String metricName) {
        this.path = path;
        this.metricName = metricName;
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

    /** A short, bounded name for metric tags. */
    public String metricName() {
        return metricName;
    }
}
