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
 * <p>Blocks being computed count as found, as in vLLM: its scheduler caches a block when it schedules the step that
 * computes it and runs one step at a time, so a request that arrives while another's prefill computes its prefix is
 * scheduled after that step with those blocks cached. Here a request that finds leading blocks another request's
 * prefill is computing ({@code pending}) counts them as hits and starts its own prefill when that prefill ends
 * ({@link Hold#firstTokenAt()}). Only running prefills' blocks are pending: bounded by the running requests.
 *
 * <p>With a {@link KvEventSink} (token blocks, {@code --kv-events}), each change is published under the same lock, so
 * batches leave in the order the cache changed: a prefill's end as its new blocks ({@code BlockStored} runs) and the
 * blocks it evicted ({@code BlockRemoved}) in one batch; a release that evicts (the cache was over its capacity) as
 * one {@code BlockRemoved}.
 */
final class PrefixCache {

    /** The counters and the occupancy at one instant. */
    record Snapshot(long blocksQueried, long blocksHit, long hitRequests, long waitRequests, int blocksCached,
                    int capacity) {
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
        private final long firstTokenAt;
        /** Its prefill's blocks are registered as being computed until it stores them or ends. */
        private boolean computing;
        private boolean released;

        private Hold(PromptBlocks prompt, int hits, int held, long firstTokenAt) {
            this.prompt = prompt;
            this.hits = hits;
            this.held = held;
            this.firstTokenAt = firstTokenAt;
        }

        /** Leading blocks of the prompt the cache held or was computing when the request started. */
        int hits() {
            return hits;
        }

        /** When its prefill ends ({@link System#nanoTime()}): after the prefills computing its hits, then its own. */
        long firstTokenAt() {
            return firstTokenAt;
        }
    }

    /** When a request's prefill ends, given the leading blocks it found and when the prefill may start. */
    @FunctionalInterface
    interface PrefillClock {
        long firstTokenAt(int foundBlocks, long startAt);
    }

    /** A block a running prefill is computing, and when that prefill ends. */
    private record Pending(Hold owner, long doneAt) {
    }

    private final int capacity;
    /** Every cached block and how many running requests hold it (0: evictable). */
    private final Map<Long, Integer> refs = new HashMap<>();
    /** The cached blocks no request holds, the next to evict first. */
    private final LinkedHashSet<Long> evictable = new LinkedHashSet<>();
    /** Blocks that running prefills are computing, not cached yet. */
    private final Map<Long, Pending> pending = new HashMap<>();
    private final KvEventSink events;
    private long blocksQueried;
    private long blocksHit;
    private long hitRequests;
    private long waitingRequests;

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

    /** {@link #acquire(PromptBlocks, long, PrefillClock)} for a prefill that takes no time. */
    Hold acquire(PromptBlocks prompt) {
        return acquire(prompt, System.nanoTime(), (found, startAt) -> startAt);
    }

    /**
     * A request starts at {@code now}: counts the leading blocks of {@code prompt} that are cached or being computed
     * (the lookup is counted), holds the cached ones so they stay while it runs, and registers the rest of its prompt
     * as being computed until its prefill ends — which {@code clock} tells from the blocks found and from when the
     * prefills computing them end.
     */
    synchronized Hold acquire(PromptBlocks prompt, long now, PrefillClock clock) {
        long[] chain = prompt.chain();
        if (capacity == 0 || chain.length == 0) {
            return new Hold(prompt, 0, 0, clock.firstTokenAt(0, now));
        }
        int cached = 0;
        while (cached < chain.length && refs.containsKey(chain[cached])) {
            cached++;
        }
        int found = cached;
        long startAt = now;
        for (; found < chain.length; found++) {
            Pending computing = pending.get(chain[found]);
            if (computing != null) {
                startAt = Math.max(startAt, computing.doneAt());
            } else if (!refs.containsKey(chain[found])) {
                break;
            }
        }
        for (int i = 0; i < cached; i++) {
            hold(chain[i]);
        }
        blocksQueried += chain.length;
        blocksHit += found;
        if (found > 0) {
            hitRequests++;
        }
        if (found > cached) {
            waitingRequests++;
        }
        Hold hold = new Hold(prompt, found, cached, clock.firstTokenAt(found, startAt));
        for (int i = found; i < chain.length; i++) {
            if (!refs.containsKey(chain[i])
                    && pending.putIfAbsent(chain[i], new Pending(hold, hold.firstTokenAt)) == null) {
                hold.computing = true;
            }
        }
        return hold;
    }

    /**
     * The request's prefill is done: every block of its prompt is cached and held until {@link #release}; the least
     * recently released blocks are evicted beyond the capacity. With events on and token blocks, publishes the new
     * blocks and the evicted ones. Nothing once released (a request cancelled before its prefill ended).
     */
    synchronized void store(Hold hold) {
        PromptBlocks prompt = hold.prompt;
        long[] chain = prompt.chain();
        forgetComputing(hold);
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
        forgetComputing(hold); // cancelled before its prefill ended: it stores nothing
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

    /** The blocks {@code hold}'s prefill was computing are no longer pending (stored, or never to be). */
    private void forgetComputing(Hold hold) {
        if (!hold.computing) {
            return;
        }
        hold.computing = false;
        long[] chain = hold.prompt.chain();
        for (int i = hold.hits; i < chain.length; i++) {
            Pending computing = pending.get(chain[i]);
            if (computing != null && computing.owner() == hold) {
                pending.remove(chain[i]);
            }
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
        return new Snapshot(blocksQueried, blocksHit, hitRequests, waitingRequests, refs.size(), capacity);
    }
}
