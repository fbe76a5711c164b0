package io.cachegate.simulator;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A replica's prefix cache: prompt blocks keyed by chained block hashes (see {@link PromptBlocks}), so a block hits
 * only when the whole prompt before it matches too, reference-counted as vLLM's block pool counts them. A running
 * request holds its prompt's blocks ({@link Hold}): the leading blocks it found from its start, the rest from the end
 * of its prefill (when vLLM has computed them and publishes them) until it ends. Only blocks no running request holds
 * can be evicted, least recently released first; a request releases its blocks tail first, so eviction takes a
 * chain's tail before its head (vLLM frees them in the same order: a head without its tail still hits, a tail without
 * its head never does). The capacity bounds the cached blocks; when running requests alone hold more, the cache keeps
 * them all until they end (vLLM would queue the request instead; the simulator's concurrency gate stands for that).
 * Shared by the replica's event loops, hence the lock; each call is O(blocks of one prompt).
 *
 * <p>With a {@link KvEventSink} (token blocks, {@code --kv-events}), each change is published under the same lock, so
 * batches leave in the order the cache changed: a prefill's end as its new blocks ({@code BlockStored} runs) and the
 * blocks it evicted ({@code BlockRemoved}) in one batch; a release that evicts (the cache was over its capacity) as
 * one {@code BlockRemoved}.
 */
final class PrefixCache {

    /** The counters and the occupancy at one instant. */
    record Snapshot(long blocksQueried, long blocksHit, long hitRequests, int blocksCached, int capacity) {
    }

    /**
     * One request's claim on its prompt's blocks, from {@link #acquire} to {@link #release}. Confined to the request's
     * event loop; the cache reads and updates it under its lock.
     */
    static final class Hold {
        private final PromptBlocks prompt;
        private final int hits;
        /** Leading blocks of the prompt this request holds. */
        private int held;
        private boolean released;

        private Hold(PromptBlocks prompt, int hits) {
            this.prompt = prompt;
            this.hits = hits;
            this.held = hits;
        }

        /** Leading blocks of the prompt the cache held when the request started. */
        int hits() {
            return hits;
        }
    }

    private final int capacity;
    /** Every cached block and how many running requests hold it (0: evictable). */
    private final Map<Long, Integer> refs = new HashMap<>();
    /** The cached blocks no request holds, the next to evict first. */
    private final LinkedHashSet<Long> evictable = new LinkedHashSet<>();
    private final KvEventSink events;
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
    }

    /**
     * A request starts: counts the leading blocks of {@code prompt} that are cached (the lookup is counted) and holds
     * them, so they stay while it runs.
     */
    synchronized Hold acquire(PromptBlocks prompt) {
        long[] chain = prompt.chain();
        if (capacity == 0 || chain.length == 0) {
            return new Hold(prompt, 0);
        }
        int hits = 0;
        while (hits < chain.length && refs.containsKey(chain[hits])) {
            hits++;
        }
        for (int i = 0; i < hits; i++) {
            hold(chain[i]);
        }
        blocksQueried += chain.length;
        blocksHit += hits;
        if (hits > 0) {
            hitRequests++;
        }
        return new Hold(prompt, hits);
    }

    /**
     * The request's prefill is done: every block of its prompt is cached and held until {@link #release}; the least
     * recently released blocks are evicted beyond the capacity. With events on and token blocks, publishes the new
     * blocks and the evicted ones. Nothing once released (a request cancelled before its prefill ended).
     */
    synchronized void store(Hold hold) {
        PromptBlocks prompt = hold.prompt;
        long[] chain = prompt.chain();
        if (hold.released || capacity == 0 || hold.held == chain.length) {
            return;
        }
        boolean[] fresh = new boolean[chain.length];
        for (int i = hold.held; i < chain.length; i++) {
            fresh[i] = !refs.containsKey(chain[i]);
            hold(chain[i]);
        }
        int from = hold.held;
        hold.held = chain.length;
        long[] evicted = evictOverCapacity();
        if (events == null || !prompt.tokenized()) {
            return;
        }
        List<KvEvent> batch = new ArrayList<>(2);
        int bs = prompt.blockSize();
        for (int i = from; i < chain.length; i++) {
            if (!fresh[i]) {
                continue;
            }
            int end = i;
            while (end + 1 < chain.length && fresh[end + 1]) {
                end++;
            }
            batch.add(new KvEvent.BlockStored(Arrays.copyOfRange(chain, i, end + 1), i == 0 ? null : chain[i - 1],
                    Arrays.copyOfRange(prompt.tokens(), i * bs, (end + 1) * bs), bs));
            i = end;
        }
        if (evicted.length > 0) {
            batch.add(new KvEvent.BlockRemoved(evicted));
        }
        if (!batch.isEmpty()) {
            events.publish(batch);
        }
    }

    /**
     * The request ended (or was cancelled): its blocks become evictable, tail first, and the cache evicts back down to
     * its capacity if running requests had held it above. Idempotent.
     */
    synchronized void release(Hold hold) {
        if (hold.released) {
            return;
        }
        hold.released = true;
        for (int i = hold.held - 1; i >= 0; i--) {
            long key = hold.prompt.chain()[i];
            int count = refs.get(key) - 1;
            refs.put(key, count);
            if (count == 0) {
                evictable.add(key);
            }
        }
        long[] evicted = evictOverCapacity();
        if (events != null && evicted.length > 0) {
            events.publish(List.of(new KvEvent.BlockRemoved(evicted)));
        }
    }

    private void hold(long key) {
        Integer count = refs.get(key);
        if (count == null || count == 0) {
            evictable.remove(key);
        }
        refs.put(key, count == null ? 1 : count + 1);
    }

    /** Evicts the least recently released blocks while the cache is above its capacity; returns them. */
    private long[] evictOverCapacity() {
        int over = refs.size() - capacity;
        if (over <= 0 || evictable.isEmpty()) {
            return new long[0];
        }
        long[] evicted = new long[Math.min(over, evictable.size())];
        Iterator<Long> eldest = evictable.iterator();
        for (int i = 0; i < evicted.length; i++) {
            evicted[i] = eldest.next();
            eldest.remove();
            refs.remove(evicted[i]);
        }
        return evicted;
    }

    /** The cached block hashes, in no particular order (a copy). */
    synchronized Set<Long> blocks() {
        return new HashSet<>(refs.keySet());
    }

    synchronized boolean contains(long block) {
        return refs.containsKey(block);
    }

    synchronized Snapshot snapshot() {
        return new Snapshot(blocksQueried, blocksHit, hitRequests, refs.size(), capacity);
    }
}
