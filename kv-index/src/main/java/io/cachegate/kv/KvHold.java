package io.cachegate.kv;

import java.util.concurrent.TimeUnit;

/**
 * A request held back, before it is routed, while a replica computes its prefix for an earlier request this gateway
 * sent there (the blocks are pending: routed, not yet in the replica's events). Sent at once it would compute the
 * same prefix again — the engine finds a block only once it is stored — so it waits until the replica's events store
 * those blocks (or evict them), then is routed as usual and finds them held. Bounded: {@link #MAX_NANOS} after the
 * earlier request was routed it goes anyway. Read by the request's own thread; the replica's blocks change under it.
 */
public final class KvHold {

    /** Fewer pending blocks than this (256 tokens at vLLM's 16 per block) are not worth a wait. */
    static final int MIN_BLOCKS = 16;
    /**
     * How long after the earlier request was routed a held request stops waiting for its blocks: a prefill of a few
     * thousand tokens plus the events' lag; a replica that has not stored them by then is queueing or gone.
     */
    static final long MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(2_000);

    private final ReplicaBlocks blocks;
    private final int replica;
    private final long[] keys;
    private final int pendingBlocks;
    private final long deadline;

    KvHold(ReplicaBlocks blocks, int replica, long[] keys, int pendingBlocks, long deadline) {
        this.blocks = blocks;
        this.replica = replica;
        this.keys = keys;
        this.pendingBlocks = pendingBlocks;
        this.deadline = deadline;
    }

    /** The replica (URL order) computing the prefix. */
    public int replica() {
        return replica;
    }

    /** The prompt's blocks it was computing when the hold began. */
    public int pendingBlocks() {
        return pendingBlocks;
    }

    /** When the hold ends at the latest ({@link System#nanoTime()}). */
    public long deadline() {
        return deadline;
    }

    /**
     * Whether to stop waiting at {@code now}: the replica's events stored the blocks (or evicted them, or they stopped
     * counting as pending), or the deadline passed.
     */
    public boolean over(long now) {
        return now - deadline >= 0 || blocks.head(keys, now).pendingBlocks() < MIN_BLOCKS;
    }
}
