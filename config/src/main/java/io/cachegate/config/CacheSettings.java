package io.cachegate.config;

import java.util.List;
import java.util.Objects;

/**
 * Global cache settings: the exact-match store, the semantic (embedding similarity) index, the policy's own
 * patterns of sensitive data (on top of the built-in detectors), which keep matching requests out of the cache, and
 * how gateways sharing one store work together.
 */
public record CacheSettings(ExactCacheSettings exact, SemanticCacheSettings semantic,
                            List<SensitivePattern> sensitivePatterns, FleetSettings fleet) {

    public CacheSettings {
        Objects.requireNonNull(exact, "exact");
        Objects.requireNonNull(semantic, "semantic");
        Objects.requireNonNull(fleet, "fleet");
        sensitivePatterns = List.copyOf(sensitivePatterns);
    }

    /** With the fleet settings at their defaults. */
    public CacheSettings(ExactCacheSettings exact, SemanticCacheSettings semantic,
                         List<SensitivePattern> sensitivePatterns) {
        this(exact, semantic, sensitivePatterns, FleetSettings.defaults());
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
