package io.cachegate.kv;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The KV blocks one replica holds, per its events: block keys ({@link BlockKeys}) with the media holding them, and
 * the engine hash of each so that a later event naming it (a child's parent, an eviction) finds it. One writer (the
 * subscriber's thread) applies events; routing reads from any thread without locks (a read may see an event half
 * applied, which only shifts a score by a block). Bounded by {@code maxBlocks}: beyond it new blocks are not
 * recorded (counted in {@link #dropped()}) until evictions make room — an engine evicts as it fills, so this only
 * bites when the bound is below the replica's real cache.
 */
public final class ReplicaBlocks {

    private static final int GPU = 1;
    private static final int CPU = 2;

    private final int maxBlocks;
    /** The engine's hash of a block → the gateway's key of it. */
    private final ConcurrentHashMap<Long, Long> keys = new ConcurrentHashMap<>();
    /** The gateway's key → the media holding it (bits GPU, CPU). */
    private final ConcurrentHashMap<Long, Integer> held = new ConcurrentHashMap<>();
    /**
     * Blocks of requests just routed here, by key, with when they were routed: the prefill has not finished, but
     * the next request with the same prefix, arriving meanwhile, is better sent after it than to a replica that
     * would compute it again. An event storing or evicting the block ends it; so does {@link #PENDING_NANOS}.
     */
    private final ConcurrentHashMap<Long, Long> pending = new ConcurrentHashMap<>();
    static final long PENDING_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** Pending blocks kept at most (beyond, the expired are purged, then new ones are not kept). */
    static final int MAX_PENDING = 65_536;
    private final LongAdder dropped = new LongAdder();
    private final LongAdder orphans = new LongAdder();
    private volatile int blockSize;

    public ReplicaBlocks(int maxBlocks) {
        if (maxBlocks < 1) {
            throw new IllegalArgumentException("maxBlocks must be positive, was " + maxBlocks);
        }
        this.maxBlocks = maxBlocks;
    }

    /** Applies one event. Only the subscriber's thread calls this. */
    void apply(KvEvent event) {
        if (event instanceof KvEvent.BlockStored s) {
            store(s);
        } else if (event instanceof KvEvent.BlockRemoved r) {
            remove(r);
        } else {
            clear();
        }
    }

    private void store(KvEvent.BlockStored s) {
        long parentKey = BlockKeys.ROOT;
        if (s.hasParent()) {
            Long known = keys.get(s.parent());
            if (known == null) {
                // Its parent was stored before this gateway listened and is not in the replay: the chain of keys
                // cannot be rebuilt, and a key made from the wrong parent would claim a prefix the replica lacks.
                orphans.add(s.hashes().length);
                return;
            }
            parentKey = known;
        }
        blockSize = s.blockSize();
        int bit = s.medium() == KvEvent.Medium.GPU ? GPU : CPU;
        for (int i = 0; i < s.hashes().length; i++) {
            long key = BlockKeys.next(parentKey, s.tokenIds(), i * s.blockSize(), (i + 1) * s.blockSize());
            parentKey = key;
            if (!held.containsKey(key) && held.size() >= maxBlocks) {
                dropped.add(s.hashes().length - i);
                return;
            }
            keys.put(s.hashes()[i], key);
            held.merge(key, bit, (a, b) -> a | b);
            pending.remove(key);
        }
    }

    private void remove(KvEvent.BlockRemoved r) {
        int bit = r.medium() == KvEvent.Medium.GPU ? GPU : CPU;
        for (long hash : r.hashes()) {
            Long key = keys.get(hash);
            if (key == null) {
                continue;
            }
            pending.remove(key);
            Integer left = held.computeIfPresent(key, (k, media) -> (media & ~bit) == 0 ? null : media & ~bit);
            if (left == null) {
                keys.remove(hash);
            }
        }
    }

    void clear() {
        held.clear();
        keys.clear();
        pending.clear();
    }

    /** A request with these prompt block keys was routed here: they count as held until confirmed or evicted. */
    void routed(long[] promptKeys) {
        long now = System.nanoTime();
        if (pending.size() + promptKeys.length > MAX_PENDING) {
            pending.values().removeIf(routedAt -> now - routedAt - PENDING_NANOS > 0);
            if (pending.size() + promptKeys.length > MAX_PENDING) {
                return;
            }
        }
        for (long key : promptKeys) {
            if (!held.containsKey(key)) {
                pending.put(key, now);
            }
        }
    }

    /** Whether the block keyed {@code key} was routed here under {@link #PENDING_NANOS} ago and not stored since. */
    private boolean isPending(long key, long now) {
        Long routedAt = pending.get(key);
        if (routedAt == null) {
            return false;
        }
        if (now - routedAt - PENDING_NANOS > 0) {
            pending.remove(key, routedAt);
            return false;
        }
        return true;
    }

    /** Receives one block of a snapshot: the engine's hash, the gateway's key, the media bits holding it. */
    interface BlockVisitor {
        void block(long engineHash, long key, int media);
    }

    /** Every block with its engine hash, for a snapshot (concurrently with the writer: see {@link KvSnapshot}). */
    void forEach(BlockVisitor visitor) {
        keys.forEach((hash, key) -> {
            Integer media = held.get(key);
            if (media != null) {
                visitor.block(hash, key, media);
            }
        });
    }

    /** Puts back one block of a sibling's snapshot. Only the subscriber's thread calls this. */
    void restore(long engineHash, long key, int media, int size) {
        if (held.size() >= maxBlocks && !held.containsKey(key)) {
            dropped.increment();
            return;
        }
        blockSize = size;
        keys.put(engineHash, key);
        held.merge(key, media, (a, b) -> a | b);
    }

    /**
     * The prompt tokens this replica holds at the head of {@code promptKeys} (the request's block keys): the leading
     * run of held blocks (or pending ones, see {@link #routed}), a block in GPU memory counting {@code blockSize}
     * tokens, one only in CPU memory {@code cpuWeight} of that.
     */
    public double heldTokens(long[] promptKeys, int promptBlockSize, double cpuWeight) {
        double tokens = 0;
        long now = System.nanoTime();
        for (long key : promptKeys) {
            Integer media = held.get(key);
            if (media == null) {
                if (!isPending(key, now)) {
                    break;
                }
                tokens += promptBlockSize; // being computed in GPU memory now
                continue;
            }
            tokens += (media & GPU) != 0 ? promptBlockSize : cpuWeight * promptBlockSize;
        }
        return tokens;
    }

    /** Whether the replica holds the block keyed {@code key} in any medium. */
    public boolean holds(long key) {
        return held.containsKey(key);
    }

    /** Blocks held now (in any medium). */
    public int size() {
        return held.size();
    }

    /** The block size its events report; 0 before the first stored block. */
    public int blockSize() {
        return blockSize;
    }

    /** Blocks not recorded because the index was at {@code maxBlocks}. */
    public long dropped() {
        return dropped.sum();
    }

    /** Blocks not recorded because their parent was unknown (stored before this gateway could hear of it). */
    public long orphans() {
        return orphans.sum();
    }
}
