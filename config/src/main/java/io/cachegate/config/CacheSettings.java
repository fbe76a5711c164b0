package io.cachegate.config;

import java.util.List;
import java.util.Objects;

/**
 * Global cache settings: the exact-match store, the semantic (embedding similarity) index, and the policy's own
 * patterns of sensitive data (on top of the built-in detectors), which keep matching requests out of the cache.
 */
public record CacheSettings(ExactCacheSettings exact, SemanticCacheSettings semantic,
                            List<SensitivePattern> sensitivePatterns) {

    public CacheSettings {
        Objects.requireNonNull(exact, "exact");
        Objects.requireNonNull(semantic, "semantic");
        sensitivePatterns = List.copyOf(sensitivePatterns);
    }

    /** Without patterns of the policy's own. */
    public CacheSettings(ExactCacheSettings exact, SemanticCacheSettings semantic) {
        this(exact, semantic, List.of());
    }

    /** In-memory exact cache, semantic cache off. */
    public static CacheSettings defaults() {
        return new CacheSettings(ExactCacheSettings.defaults(), SemanticCacheSettings.defaults());
    }
}
