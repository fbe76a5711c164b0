package io.cachegate.cache.exact;

import java.util.Objects;
import java.util.Optional;

/**
 * Which entries a purge removes: all of them, or those matching every given field (tenant, model
 * version, tag, end user). At least one field must be given unless {@code all}. A user purge reads the
 * user's own index, so it combines with tenant and model version but not with a tag.
 *
 * @param user the {@link UserDigest} of the end user whose entries go, never the raw id
 */
public record PurgeScope(boolean all, Optional<String> tenant, Optional<String> modelVersion, Optional<String> tag,
                         Optional<String> user) {

    public PurgeScope {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(modelVersion, "modelVersion");
        Objects.requireNonNull(tag, "tag");
        Objects.requireNonNull(user, "user");
        if (!all && tenant.isEmpty() && modelVersion.isEmpty() && tag.isEmpty() && user.isEmpty()) {
            throw new IllegalArgumentException("a purge needs a tenant, a model_version, a tag, a user, or all");
        }
        if (user.isPresent() && tag.isPresent()) {
            throw new IllegalArgumentException("a user purge combines with tenant and model_version, not with a tag");
        }
    }

    /** A scope without a user. */
    public PurgeScope(boolean all, Optional<String> tenant, Optional<String> modelVersion, Optional<String> tag) {
        this(all, tenant, modelVersion, tag, Optional.empty());
    }

    public static PurgeScope everything() {
        return new PurgeScope(true, Optional.empty(), Optional.empty(), Optional.empty());
    }

    /** Every entry written for the end user whose digest is {@code userDigest}. */
    public static PurgeScope user(String userDigest) {
        return new PurgeScope(false, Optional.empty(), Optional.empty(), Optional.empty(), Optional.of(userDigest));
    }

    /** True when {@code key} stored with {@code entry} is inside this scope. */
    public boolean matches(CacheKey key, CacheEntry entry) {
        if (all) {
            return true;
        }
        return tenant.map(key.tenant()::equals).orElse(true)
                && modelVersion.map(key.modelVersion()::equals).orElse(true)
                && tag.map(entry.tags()::contains).orElse(true)
                && user.map(entry.userDigest()::equals).orElse(true);
    }
}
