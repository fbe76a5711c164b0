/**
 * The semantic-cache stage and the semantic cache it asks (embedder, vector index, match decision, write-back,
 * purge): a near-repeat in the same scope is answered with the exact entry its neighbour points at.
 */
package io.cachegate.gateway.cache.semantic;
