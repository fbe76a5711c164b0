/**
 * The semantic cache's parts: an {@link io.cachegate.cache.semantic.Embedder} running
 * bge-small-en-v1.5 (int8) on ONNX Runtime behind a bounded micro-batching queue, and a
 * {@link io.cachegate.cache.semantic.VectorIndex} with an embedded (Lucene on disk, scanned by sign codes) and a Qdrant
 * store, searched within one exact scope. Index entries point at exact-cache keys, so an answer is
 * stored once. A {@link io.cachegate.cache.semantic.MatchDecision} turns a query's neighbours into a hit or
 * a miss: a bare cosine threshold, the threshold plus {@link io.cachegate.cache.semantic.PairGuard}s over the
 * two texts (numbers, negation, named entities), or a cosine floor plus a logistic regression over
 * {@link io.cachegate.cache.semantic.PairFeatures} whose parameters ship as a resource
 * ({@link io.cachegate.cache.semantic.LearnedDecision}); {@link io.cachegate.cache.semantic.MatchDecisions}
 * builds one by its policy name. The gateway wiring comes next (issue 4).
 */
package io.cachegate.cache.semantic;
