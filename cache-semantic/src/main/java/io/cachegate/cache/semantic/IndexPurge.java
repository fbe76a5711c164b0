package io.cachegate.cache.semantic;

import java.util.Objects;
import java.util.Optional;

/**
 * Which index entries a purge removes: all of them, or those matching every given field (tenant, model
 * version, tag, end user digest), as the exact cache's purge does. At least one field must be given unless
 * {@code all}.
 */
public record IndexPurge(boolean all, Optional<String> tenant, Optional<String> modelVersion, Optional<String> tag,
                         Optional<String> user) {

    public IndexPurge {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(modelVersion, "modelVersion");
        Objects.requireNonNull(tag, "tag");
        Objects.requireNonNull(user, "user");
        if (!all && tenant.isEmpty() && modelVersion.isEmpty() && tag.isEmpty() && user.isEmpty()) {
            throw new IllegalArgumentException("a purge needs a tenant, a model_version, a tag, a user, or all");
        }
    }

    /** A purge without a user. */
    public IndexPurge(boolean all, Optional<String> tenant, Optional<String> modelVersion, Optional<String> tag) {
        this(all, tenant, modelVersion, tag, Optional.empty());
    }

    public static IndexPurge everything() {
        return new IndexPurge(true, Optional.empty(), Optional.empty(), Optional.empty());
    }

    public static IndexPurge tenant(String tenant) {
        return new IndexPurge(false, Optional.of(tenant), Optional.empty(), Optional.empty());
    }

    public static IndexPurge modelVersion(String modelVersion) {
        return new IndexPurge(false, Optional.empty(), Optional.of(modelVersion), Optional.empty());
    }

    public static IndexPurge tag(String tag) {
        return new IndexPurge(false, Optional.empty(), Optional.empty(), Optional.of(tag));
    }

    /** Every entry written for the end user whose digest is {@code userDigest}. */
    public static IndexPurge user(String userDigest) {
        return new IndexPurge(false, Optional.empty(), Optional.empty(), Optional.empty(), Optional.of(userDigest));
    }

    /** True when {@code entry} is inside this purge. */
    public boolean matches(IndexEntry entry) {
        if (all) {
            return true;
        }
        return tenant.map(entry.tenant()::equals).orElse(true)
                && modelVersion.map(entry.modelVersion()::equals).orElse(true)
                && tag.map(entry.tags()::contains).orElse(true)
                && user.map(entry.userDigest()::equals).orElse(true);
    }
}
