package io.cachegate.kv;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ReplicaBlocksTest {

    private static final int[] PROMPT = {10, 11, 12, 13, 14, 15, 16, 17, 18}; // 4 blocks of 2, one token over

    private static KvEvent.BlockStored stored(long[] hashes, Long parent, int[] tokens, String medium) {
        return new KvEvent.BlockStored(hashes, parent != null, parent == null ? 0 : parent, tokens, 2,
                KvEvent.Medium.of(medium));
    }

    @Test
    void aPromptMatchesTheLeadingBlocksTheEventsStoredWhateverTheEngineCallsThem() {
        ReplicaBlocks blocks = new ReplicaBlocks(100);
        blocks.apply(stored(new long[] {901, 902}, null, new int[] {10, 11, 12, 13}, "GPU"));
        blocks.apply(stored(new long[] {903}, 902L, new int[] {14, 15}, "GPU"));
        long[] keys = BlockKeys.of(PROMPT, 2);
        assertThat(keys).hasSize(4);
        assertThat(blocks.heldTokens(keys, 2, 0.5)).isEqualTo(6);
        assertThat(blocks.size()).isEqualTo(3);
        assertThat(blocks.blockSize()).isEqualTo(2);
        // Another prompt sharing only the first block
        long[] other = BlockKeys.of(new int[] {10, 11, 99, 98}, 2);
        assertThat(blocks.heldTokens(other, 2, 0.5)).isEqualTo(2);
        // Same tokens at another position never match: keys chain the whole prefix
        long[] shifted = BlockKeys.of(new int[] {12, 13, 10, 11}, 2);
        assertThat(blocks.heldTokens(shifted, 2, 0.5)).isZero();
    }

    @Test
    void evictionsBreakTheRunAndCpuBlocksCountLess() {
        ReplicaBlocks blocks = new ReplicaBlocks(100);
        blocks.apply(stored(new long[] {1, 2, 3}, null, new int[] {10, 11, 12, 13, 14, 15}, "GPU"));
        blocks.apply(stored(new long[] {2}, 1L, new int[] {12, 13}, "CPU")); // also offloaded to CPU
        long[] keys = BlockKeys.of(PROMPT, 2);
        blocks.apply(new KvEvent.BlockRemoved(new long[] {2}, KvEvent.Medium.GPU));
        assertThat(blocks.heldTokens(keys, 2, 0.5)).isEqualTo(2 + 1 + 2); // block 2 only in CPU now
        blocks.apply(new KvEvent.BlockRemoved(new long[] {2}, KvEvent.Medium.CPU));
        assertThat(blocks.heldTokens(keys, 2, 0.5)).isEqualTo(2); // the run stops at the missing block
        assertThat(blocks.size()).isEqualTo(2);
        blocks.apply(new KvEvent.AllBlocksCleared());
        assertThat(blocks.size()).isZero();
        assertThat(blocks.heldTokens(keys, 2, 0.5)).isZero();
    }

    @Test
    void blocksJustRoutedHereCountUntilTheEventsConfirmOrEvictThem() {
        ReplicaBlocks blocks = new ReplicaBlocks(100);
        long[] keys = BlockKeys.of(PROMPT, 2);
        blocks.apply(stored(new long[] {1}, null, new int[] {10, 11}, "GPU"));
        blocks.routed(keys);
        assertThat(blocks.heldTokens(keys, 2, 0.5)).as("one confirmed, three being computed").isEqualTo(8);
        assertThat(blocks.size()).as("pending blocks are not held blocks").isEqualTo(1);
        blocks.apply(stored(new long[] {2}, 1L, new int[] {12, 13}, "GPU"));
        blocks.apply(new KvEvent.BlockRemoved(new long[] {2}, KvEvent.Medium.GPU)); // computed, then evicted
        assertThat(blocks.heldTokens(keys, 2, 0.5)).isEqualTo(2);
        blocks.routed(keys);
        blocks.apply(new KvEvent.AllBlocksCleared());
        assertThat(blocks.heldTokens(keys, 2, 0.5)).isZero();
    }

    @Test
    void aBlockWhoseParentItNeverHeardOfIsNotGuessed() {
        ReplicaBlocks blocks = new ReplicaBlocks(100);
        blocks.apply(stored(new long[] {5}, 4L, new int[] {12, 13}, "GPU"));
        assertThat(blocks.size()).isZero();
        assertThat(blocks.orphans()).isEqualTo(1);
    }

    @Test
    void staysWithinItsBound() {
        ReplicaBlocks blocks = new ReplicaBlocks(2);
        blocks.apply(stored(new long[] {1, 2, 3}, null, new int[] {10, 11, 12, 13, 14, 15}, "GPU"));
        assertThat(blocks.size()).isEqualTo(2);
        assertThat(blocks.dropped()).isEqualTo(1);
        blocks.apply(new KvEvent.BlockRemoved(new long[] {2}, KvEvent.Medium.GPU));
        blocks.apply(stored(new long[] {3}, 1L, new int[] {99, 98}, "GPU"));
        assertThat(blocks.size()).isEqualTo(2);
    }
}
