/**
 * What the cache stages share: cacheability and the key of a request ({@link
 * io.cachegate.gateway.cache.CacheKeyStage}, {@link io.cachegate.gateway.cache.CacheableRequest}), the semantic
 * query (the key with the embedded text blanked out), hits written from a stored entry (replayed as SSE when
 * streamed), and the model versions that namespace entries. The stages themselves live in the sub-packages.
 */
package io.cachegate.gateway.cache;
