/**
 * The semantic cache (to come): an {@code Embedder} running bge-small-en-v1.5 on ONNX Runtime, a
 * {@code VectorIndex} with an embedded (Lucene HNSW) and a Qdrant store, similarity thresholds and the
 * sweeper. Entries point at exact-cache keys, so a response body is stored once.
 */
package io.cachegate.cache.semantic;
