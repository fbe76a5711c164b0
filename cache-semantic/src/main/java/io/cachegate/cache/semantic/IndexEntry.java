package io.cachegate.cache.semantic;

import java.util.Arrays;
import java.util.Objects;
import java.util.Set;

/**
 * One semantic-cache entry: the embedding of {@code text} inside {@code scope}, pointing at the exact-cache
 * entry that holds the answer ({@code entryKey}, its Redis key string), so the body is stored once. Tenant,
 * model version and tags are kept besides the opaque scope so purges can find the entry.
 *
 * @param vector L2-normalised; the record keeps its own copy
 */
public record IndexEntry(String entryKey, String scope, String tenant, String modelVersion, Set<String> tags,
                         float[] vector, String text, long createdAtMillis, long expiresAtMillis) {

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
                && createdAtMillis == e.createdAtMillis && expiresAtMillis == e.expiresAtMillis;
    }

    @Override
    public int hashCode() {
        return Objects.hash(entryKey, scope, tenant, modelVersion, tags, Arrays.hashCode(vector), text,
                createdAtMillis, expiresAtMillis);
    }

    // No vector and no text: keys and prompts stay out of logs.
    @Override
    public String toString() {
        return "IndexEntry[dimension=" + vector.length + ", tags=" + tags.size() + ", expiresAtMillis=" + expiresAtMillis + "]";
    }

    private static void requireText(String value, String name) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(name + " must not be empty");
        }
    }
}
