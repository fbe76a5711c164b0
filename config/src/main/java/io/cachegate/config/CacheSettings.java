package io.cachegate.config;

import java.util.Objects;

/** Global cache settings: the exact-match store and the semantic (embedding similarity) index. */
public record CacheSettings(ExactCacheSettings exact, SemanticCacheSettings semantic) {

    public CacheSettings {
        Objects.requireNonNull(exact, "exact");
        Objects.requireNonNull(semantic, "semantic");
    }

    /** In-memory exact cache, semantic cache off. */
    public static CacheSettings defaults() {
        return new CacheSettings(ExactCacheSettings.defaults(), SemanticCacheSettings.defaults());
    }
}
