package io.cachegate.config;

/** Where exact-match cache entries live. YAML: {@code memory} or {@code redis}. */
public enum ExactStore {
    MEMORY,
    REDIS
}
