package io.cachegate.cache.semantic;

import java.util.Objects;

/**
 * One search result: the exact-cache key the entry points at, its cosine similarity to the query, and the
 * embedded text (for guards and re-ranking).
 */
public record Neighbour(String entryKey, float similarity, String text, long createdAtMillis, long expiresAtMillis) {

    public Neighbour {
        Objects.requireNonNull(entryKey, "entryKey");
        Objects.requireNonNull(text, "text");
    }
}
