/**
 * The exact cache on the request path: cacheability and key per request, hits answered from the
 * store (replayed as SSE when streamed), misses captured for the store, identical misses in flight
 * coalesced onto one upstream call, and the model versions that namespace entries.
 */
package io.cachegate.gateway.cache;
