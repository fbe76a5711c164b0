package io.cachegate.gateway.cache;

/** What a semantic hit adds to its answer's headers: the similarity, and the embed and search times. */
public record SemanticHit(float similarity, long embedNanos, long searchNanos) {
}
