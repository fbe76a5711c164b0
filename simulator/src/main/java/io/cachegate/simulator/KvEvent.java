package io.cachegate.simulator;

/**
 * One of vLLM's KV-cache events ({@code vllm/distributed/kv_events.py}): blocks stored, blocks removed, or the
 * whole cache cleared. Hashes are the {@link PromptBlocks} token-block hashes (63-bit, non-negative).
 */
sealed interface KvEvent {

    /**
     * A run of consecutive new blocks of one prompt: their hashes head first, the hash of the block before the
     * run ({@code null} when the run starts the prompt) and the run's token ids ({@code hashes × blockSize}).
     */
    record BlockStored(long[] blockHashes, Long parentBlockHash, int[] tokenIds, int blockSize) implements KvEvent {
    }

    /** Blocks evicted from the cache. */
    record BlockRemoved(long[] blockHashes) implements KvEvent {
    }

    /** Every block is gone (the replica restarted). */
    record AllBlocksCleared() implements KvEvent {
    }
}
