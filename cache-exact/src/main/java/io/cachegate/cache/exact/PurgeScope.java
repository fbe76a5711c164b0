package io.cachegate.cache.exact;

import java.util.Optional;

/**
 * Which entries a purge removes: all of them, or those matching every given field (tenant, model
 * version, tag). At least one field must be given unless {@code all}.
 */
public record PurgeScope(boolean all, Optional<String> tenant, Optional<String> modelVersion, Optional<String> tag) {

    public PurgeScope {
        if (!all && tenant.isEmpty() && modelVersion.isEmpty() && tag.isEmpty()) {
            throw new IllegalArgumentException("a purge needs a tenant, a model_version, a tag, or all");
        }
    }

    public static PurgeScope everything() {
        return new PurgeScope(true, Optional.empty(), Optional.empty(), Optional.empty());
    }

    /** True when {@code key} stored with {@code entry} is inside this scope. */
    public boolean matches(CacheKey key, CacheEntry entry) {
        if (all) {
            return true;
        }
        return tenant.map(key.tenant()::equals).orElse(true)
                && modelVersion.map(key.modelVersion()::equals).orElse(true)
                && tag.map(entry.tags()::contains).orElse(true);
    }
}
