package io.cachegate.kv;

import java.util.List;

/** One KV-cache event of an engine replica, as vLLM publishes it (vllm/distributed/kv_events.py). */
public sealed interface KvEvent {

    /** Where a block lives: GPU memory counts fully, CPU (or another tier) is cheaper than recomputing but slower. */
    enum Medium {
        GPU, CPU;

        /** vLLM's medium string; absent means GPU. Any tier other than GPU is treated as CPU memory. */
        static Medium of(String text) {
            return text == null || text.equalsIgnoreCase("GPU") ? GPU : CPU;
        }
    }

    /**
     * Blocks were stored: {@code hashes.length} consecutive full blocks, their token ids concatenated in {@code
     * tokenIds}; {@code parent} is the engine hash of the block before the first, absent for a prompt's first block.
     */
    record BlockStored(long[] hashes, boolean hasParent, long parent, int[] tokenIds, int blockSize, Medium medium)
            implements KvEvent {
    }

    /** Blocks were evicted from {@code medium}. */
    record BlockRemoved(long[] hashes, Medium medium) implements KvEvent {
    }

    /** The replica dropped its whole cache (a reset, a restart). */
    record AllBlocksCleared() implements KvEvent {
    }

    /** One published message: its publisher's time ({@code ts}, epoch seconds) and its events in order. */
    record Batch(double ts, List<KvEvent> events) {
        public Batch {
            events = List.copyOf(events);
        }
    }
}
