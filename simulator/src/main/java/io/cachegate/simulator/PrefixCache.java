package io.cachegate.simulator;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A replica's prefix cache: an LRU of prompt blocks, keyed by chained block hashes (see
 * {@link PromptBlocks}), so a block hits only when the whole prompt before it matches too. A
 * lookup counts the leading blocks found, as vLLM's does; a finished prefill inserts its blocks.
 * Blocks of a chain are touched tail first, so the head ends up most recent and eviction takes a
 * chain's tail before its head (vLLM frees blocks in the same order, for the same reason: a
 * head without its tail still hits, a tail without its head never does). Shared by the replica's
 * event loops, hence the lock; each call is O(blocks of one prompt).
 *
 * <p>With a {@link KvEventSink} (token blocks, {@code --kv-events}), each insert that changes the cache
 * publishes what changed, under the same lock so batches leave in the order the cache changed: the net new
 * blocks as {@code BlockStored} runs and the blocks its eviction took as one {@code BlockRemoved}, in one batch.
 */
final class PrefixCache {

    /** The counters and the occupancy at one instant. */
    record Snapshot(long blocksQueried, long blocksHit, long hitRequests, int blocksCached, int capacity) {
    }

    private final int capacity;
    private final LinkedHashMap<Long, Boolean> blocks;
    private final KvEventSink events;
    /** Keys evicted during the insert in progress, when events are published. */
    private List<Long> evicted;
    private long blocksQueried;
    private long blocksHit;
    private long hitRequests;

    PrefixCache(int capacity) {
        this(capacity, null);
    }

    /** A cache that publishes its changes to {@code events} (null: none). */
    PrefixCache(int capacity, KvEventSink events) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity must be >= 0, was " + capacity);
        }
        this.capacity = capacity;
        this.events = events;
        this.blocks = new LinkedHashMap<>(16, 0.75f, true) { // access order: an LRU
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
                if (size() <= PrefixCache.this.capacity) {
                    return false;
                }
                if (evicted != null) {
                    evicted.add(eldest.getKey());
                }
                return true;
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

    /**
     * Caches every block of {@code prompt}; with events on and token blocks, publishes the change. The events
     * describe the net change (a block stored and evicted by this same insert appears in neither, a cached block
     * evicted and stored again stays), so a subscriber replaying them holds exactly {@link #blocks()}.
     */
    synchronized void insert(PromptBlocks prompt) {
        long[] chain = prompt.chain();
        if (events == null || !prompt.tokenized() || capacity == 0 || chain.length == 0) {
            insert(chain);
            return;
        }
        boolean[] fresh = new boolean[chain.length];
        Set<Long> freshKeys = new HashSet<>();
        for (int i = 0; i < chain.length; i++) {
            fresh[i] = !blocks.containsKey(chain[i]); // containsKey does not touch the access order
            if (fresh[i]) {
                freshKeys.add(chain[i]);
            }
        }
        evicted = new ArrayList<>();
        try {
            insert(chain);
        } finally {
            List<KvEvent> batch = new ArrayList<>(2);
            int bs = prompt.blockSize();
            for (int i = 0; i < chain.length; i++) {
                if (!fresh[i] || !blocks.containsKey(chain[i])) {
                    continue;
                }
                int end = i;
                while (end + 1 < chain.length && fresh[end + 1] && blocks.containsKey(chain[end + 1])) {
                    end++;
                }
                batch.add(new KvEvent.BlockStored(Arrays.copyOfRange(chain, i, end + 1), i == 0 ? null : chain[i - 1],
                        Arrays.copyOfRange(prompt.tokens(), i * bs, (end + 1) * bs), bs));
                i = end;
            }
            long[] removed = evicted.stream().filter(k -> !freshKeys.contains(k) && !blocks.containsKey(k))
                    .distinct().mapToLong(Long::longValue).toArray();
            if (removed.length > 0) {
                batch.add(new KvEvent.BlockRemoved(removed));
            }
            evicted = null;
            if (!batch.isEmpty()) {
                events.publish(batch);
            }
        }
    }

    /** The cached block hashes, in no particular order (a copy). */
    synchronized Set<Long> blocks() {
        return new HashSet<>(blocks.keySet());
    }

    synchronized boolean contains(long block) {
        return blocks.containsKey(block);
    }

    synchronized Snapshot snapshot() {
        return new Snapshot(blocksQueried, blocksHit, hitRequests, blocks.size(), capacity);
    }
}
