package io.cachegate.cache.semantic;

import java.util.Arrays;
import java.util.Objects;
import java.util.Set;

/**
 * One semantic-cache entry: the embedding of {@code text} inside {@code scope}, pointing at the exact-cache
 * entry that holds the answer ({@code entryKey}, its Redis key string), so the body is stored once. Tenant,
 * model version, tags and end user are kept besides the opaque scope so purges can find the entry; its access
 * labels so a search returns it only to a reader whose key holds them all.
 *
 * @param vector L2-normalised; the record keeps its own copy
 * @param labels the access labels of the request that wrote it; empty when unlabelled
 * @param userDigest the digest of the end user it was written for, "" for none
 */
public record IndexEntry(String entryKey, String scope, String tenant, String modelVersion, Set<String> tags,
                         float[] vector, String text, long createdAtMillis, long expiresAtMillis, Set<String> labels,
                         String userDigest) {

    public IndexEntry {
        requireText(entryKey, "entryKey");
        requireText(scope, "scope");
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(modelVersion, "modelVersion");
        tags = Set.copyOf(tags);
        Objects.requireNonNull(vector, "vector");
        if (vector.length == 0) {
            throw new IllegalArgumentException("vector must not be empty");
        }
        vector = vector.clone();
        Objects.requireNonNull(text, "text");
        if (expiresAtMillis <= createdAtMillis) {
            throw new IllegalArgumentException("expiresAtMillis must be after createdAtMillis (every entry has a TTL)");
        }
        labels = Set.copyOf(labels);
        Objects.requireNonNull(userDigest, "userDigest");
    }

    /** An unlabelled entry written for no particular end user. */
    public IndexEntry(String entryKey, String scope, String tenant, String modelVersion, Set<String> tags,
                      float[] vector, String text, long createdAtMillis, long expiresAtMillis) {
        this(entryKey, scope, tenant, modelVersion, tags, vector, text, createdAtMillis, expiresAtMillis, Set.of(), "");
    }

    /** A copy: the record stays immutable. */
    @Override
    public float[] vector() {
        return vector.clone();
    }

    /** The vector without copying, for the indexes in this package that only read it. */
    float[] vectorUnsafe() {
        return vector;
    }

    public boolean expiredAt(long nowMillis) {
        return expiresAtMillis <= nowMillis;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IndexEntry e && entryKey.equals(e.entryKey) && scope.equals(e.scope)
                && tenant.equals(e.tenant) && modelVersion.equals(e.modelVersion) && tags.equals(e.tags)
                && Arrays.equals(vector, e.vector) && text.equals(e.text)
                && createdAtMillis == e.createdAtMillis && expiresAtMillis == e.expiresAtMillis
                && labels.equals(e.labels) && userDigest.equals(e.userDigest);
    }

    @Override
    public int hashCode() {
        return Objects.hash(entryKey, scope, tenant, modelVersion, tags, Arrays.hashCode(vector), text,
                createdAtMillis, expiresAtMillis, labels, userDigest);
    }

    // No vector and no text: keys and prompts stay out of logs.
    @Override
    public String toString() {
        return "IndexEntry[dimension=" + vector.length + ", tags=" + tags.size() + ", labels=" + labels.size() + ", expiresAtMillis=" + expiresAtMillis + "]";
    }

    private static void requireText(String value, String name) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(name + " must not be empty");
        }
    }
}
