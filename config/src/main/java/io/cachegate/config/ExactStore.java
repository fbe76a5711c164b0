package io.cachegate.config;

/**
 * Where exact-match cache entries live. YAML: {@code memory} (in-process), {@code redis} (shared
 * between gateways) or {@code tiered} (a small in-process L1 in front of Redis).
 */
public enum ExactStore {
    MEMORY,
    REDIS,
    TIERED
}
