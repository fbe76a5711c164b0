package io.cachegate.config;

/** How a backend chooses among its replicas (the backend's {@code balance:}). */
public enum Balance {
    /** The replica with the fewest in-flight tokens. */
    LEAST_LOADED,
    /** The replica most likely to hold the prompt's prefix in its KV cache, unless it is much busier. */
    PREFIX_AFFINITY,
    /** Each replica in turn. */
    ROUND_ROBIN,
    /**
     * The replica whose KV cache (per its own vLLM KV-cache events) holds most of the prompt, weighed against its
     * load; prefix affinity while the backend publishes no events or has no tokenizer.
     */
    KV_AWARE
}
