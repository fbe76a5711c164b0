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
     * Blocks of requests just routed here, by key, with when they stop counting: the prefill has not finished, but
     * the next request with the same prefix, arriving meanwhile, is better sent after it than to a replica that
     * would compute it again. An event storing or evicting the block ends it; so does {@link #PENDING_NANOS}.
     */
    private final ConcurrentHashMap<Long, Long> pending = new ConcurrentHashMap<>();
    /**
     * The keys of the held blocks that begin a chain (stored with no parent): one per distinct prefix the replica
     * holds any of. An engine evicts a chain's tail first (vLLM and the simulator touch a chain tail first, so its
     * head is the most recent), so this is about the number of prefixes (system prompts, conversations) it serves.
     */
    private final java.util.Set<Long> roots = ConcurrentHashMap.newKeySet();
    /** Roots of requests just routed here, not yet stored, with when they stop counting (as {@link #pending}). */
    private final ConcurrentHashMap<Long, Long> pendingRoots = new ConcurrentHashMap<>();
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
            if (i == 0 && !s.hasParent()) {
                roots.add(key);
                pendingRoots.remove(key);
            }
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
                roots.remove(key);
            }
        }
    }

    void clear() {
        held.clear();
        keys.clear();
        pending.clear();
        roots.clear();
        pendingRoots.clear();
    }

    /** A request with these prompt block keys was routed here: they count as held until confirmed or evicted. */
    void routed(long[] promptKeys) {
        long now = System.nanoTime();
        if (pending.size() + promptKeys.length > MAX_PENDING) {
            pending.values().removeIf(expiry -> expiry - now < 0);
            if (pending.size() + promptKeys.length > MAX_PENDING) {
                return;
            }
        }
        long expiry = now + PENDING_NANOS;
        if (promptKeys.length > 0 && !held.containsKey(promptKeys[0])) {
            if (pendingRoots.size() >= MAX_PENDING) {
                pendingRoots.values().removeIf(e -> e - now < 0);
            }
            if (pendingRoots.size() < MAX_PENDING) {
                pendingRoots.put(promptKeys[0], expiry);
            }
        }
        for (long key : promptKeys) {
            if (!held.containsKey(key)) {
                pending.put(key, expiry);
            }
        }
    }

    private boolean isPending(long key, long now) {
        Long expiry = pending.get(key);
        if (expiry == null) {
            return false;
        }
        if (expiry - now < 0) {
            pending.remove(key, expiry);
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

    /**
     * The distinct prefixes this replica holds any of by its events (blocks that begin a chain), plus those of
     * requests just routed here whose first block is not stored yet ({@link #routed}, until {@link #PENDING_NANOS}).
     * Under eviction pressure every cache is full, so its block count says nothing; this says how many prefixes share
     * it. Blocks put back from a sibling's snapshot ({@link #restore}) do not count: a snapshot does not say which
     * begin a chain.
     */
    public int prefixes() {
        long now = System.nanoTime();
        int n = roots.size();
        for (var e : pendingRoots.entrySet()) {
            if (e.getValue() - now >= 0 && !roots.contains(e.getKey())) {
                n++;
            } else if (e.getValue() - now < 0) {
                pendingRoots.remove(e.getKey(), e.getValue());
            }
        }
        return n;
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
