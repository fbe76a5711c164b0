package io.cachegate.simulator;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A replica's prefix cache: an LRU of prompt blocks, keyed by chained block hashes (see
 * {@link PromptBlocks}), so a block hits only when the whole prompt before it matches too. A
 * lookup counts the leading blocks found, as vLLM's does; a finished prefill inserts its blocks.
 * Blocks of a chain are touched tail first, so the head ends up most recent and eviction takes a
 * chain's tail before its head (vLLM frees blocks in the same order, for the same reason: a
 * head without its tail still hits, a tail without its head never does). Shared by the replica's
 * event loops, hence the lock; each call is O(blocks of one prompt).
 */
final class PrefixCache {

    /** The counters and the occupancy at one instant. */
    record Snapshot(long blocksQueried, long blocksHit, long hitRequests, int blocksCached, int capacity) {
    }

    private final int capacity;
    private final LinkedHashMap<Long, Boolean> blocks;
    private long blocksQueried;
    private long blocksHit;
    private long hitRequests;

    PrefixCache(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity must be >= 0, was " + capacity);
        }
        this.capacity = capacity;
        this.blocks = new LinkedHashMap<>(16, 0.75f, true) { // access order: an LRU
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
                return size() > PrefixCache.this.capacity;
            }
        };
    }

    /** How many leading blocks of {@code chain} are cached; refreshes them and counts the lookup. */
    synchronized int lookup(long[] chain) {
        if (capacity == 0 || chain.length == 0) {
            return 0;
        }
        int hits = 0;
        while (hits < chain.length && blocks.containsKey(chain[hits])) {
            hits++;
        }
        for (int i = hits - 1; i >= 0; i--) {
            blocks.get(chain[i]); // tail first: the head becomes the most recent
        }
        blocksQueried += chain.length;
        blocksHit += hits;
        if (hits > 0) {
            hitRequests++;
        }
        return hits;
    }

    /** Caches every block of {@code chain}, evicting the least recently used beyond the capacity. */
    synchronized void insert(long[] chain) {
        if (capacity == 0) {
            return;
        }
        for (int i = chain.length - 1; i >= 0; i--) {
            blocks.put(chain[i], Boolean.TRUE);
        }
    }

    synchronized boolean contains(long block) {
        return blocks.containsKey(block);
    }

    synchronized Snapshot snapshot() {
        return new Snapshot(blocksQueried, blocksHit, hitRequests, blocks.size(), capacity);
    }
}
