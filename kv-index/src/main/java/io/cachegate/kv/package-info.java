/**
 * What each replica's KV cache holds, learned from the engine's own record: vLLM's KV-cache events
 * ({@code BlockStored}, {@code BlockRemoved}, {@code AllBlocksCleared}) over ZeroMQ, msgpack-encoded.
 *
 * <p>{@link io.cachegate.kv.KvEventSubscriber} owns the sockets of every replica on one thread, detects gaps by
 * sequence number and fills them from the replica's replay socket; {@link io.cachegate.kv.KvEventDecoder} reads
 * the wire format; {@link io.cachegate.kv.ReplicaBlocks} keeps one replica's blocks, keyed by the gateway's own
 * chained hash of their token ids ({@link io.cachegate.kv.BlockKeys}) so they match the keys of a request's prompt,
 * which {@link io.cachegate.kv.PromptTokens} tokenizes as the engine does. Routing reads {@link
 * io.cachegate.kv.BackendKvIndex#heldTokens} without waiting on the subscriber.
 */
package io.cachegate.kv;
