package io.cachegate.cache.exact;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * Builds cache keys: SHA-256 over the key schema version, tenant, model version, context hash and
 * canonical request, each length-prefixed so no two different tuples hash the same input. The key
 * never leaves out the tenant or the model version, whatever the hit rate would gain.
 */
public final class ExactKeyFactory {

    /**
     * The key of {@code canonical} (from {@link CanonicalRequest#of}) for {@code tenant} (or
     * {@link CacheKey#SHARED_TENANT}) under {@code modelVersion} and {@code contextHash} (from
     * {@link ContextHash#of}). Tenant and model version may hold any characters: {@link CacheKey#redisKey()}
     * escapes them.
     */
    public CacheKey key(String tenant, String modelVersion, String contextHash, byte[] canonical) {
        requireText(tenant, "tenant");
        requireText(modelVersion, "modelVersion");
        requireText(contextHash, "contextHash");
        if (canonical == null || canonical.length == 0) {
            throw new IllegalArgumentException("canonical must not be empty");
        }
        MessageDigest sha = Sha256.threadDigest();
        Sha256.field(sha, CacheKey.SCHEMA.getBytes(StandardCharsets.UTF_8));
        Sha256.field(sha, tenant.getBytes(StandardCharsets.UTF_8));
        Sha256.field(sha, modelVersion.getBytes(StandardCharsets.UTF_8));
        Sha256.field(sha, contextHash.getBytes(StandardCharsets.UTF_8));
        Sha256.field(sha, canonical);
        return new CacheKey(tenant, modelVersion, HexFormat.of().formatHex(sha.digest()));
    }

    private static void requireText(String value, String name) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(name + " must not be empty");
        }
    }
}
