/**
 * Embeddings batches cached per input item: each item's vector is an entry of its own, so a batch that repeats
 * items already seen sends only the others upstream and the answer is merged back in the request's order.
 */
package io.cachegate.gateway.cache.embeddings;
