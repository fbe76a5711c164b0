package io.cachegate.kv;

import java.util.List;

/**
 * What each replica of one backend holds, for routing: the prompt tokens each would not have to prefill. The
 * blocks come from the replicas' events ({@link KvEventSubscriber}); the prompt's keys are computed with the block
 * size those events report.
 */
public final class BackendKvIndex {

    /** vLLM's default block size, used until a replica reports its own. */
    public static final int DEFAULT_BLOCK_SIZE = 16;

    private final List<KvFeed> feeds;
    private final double cpuWeight;

    /**
     * @param feeds one per replica, in the backend's URL order
     * @param cpuWeight what a block held only in CPU memory counts, against 1 for one in GPU memory
     */
    public BackendKvIndex(List<KvFeed> feeds, double cpuWeight) {
        if (!(cpuWeight >= 0 && cpuWeight <= 1)) {
            throw new IllegalArgumentException("cpuWeight must be in [0, 1], was " + cpuWeight);
        }
        this.feeds = List.copyOf(feeds);
        this.cpuWeight = cpuWeight;
    }

    /**
     * A request whose prompt has {@code keys} (from {@link Match#keys()}) was routed to {@code replica}: its blocks
     * count as held there until that replica's events confirm or evict them (see {@link ReplicaBlocks#routed}).
     */
    public void routed(int replica, long[] keys) {
        feeds.get(replica).blocks().routed(keys);
    }

    public List<KvFeed> feeds() {
        return feeds;
    }

    /**
     * True once any replica's events have been applied or its replay has answered (it holds nothing yet): before that
     * (or with no event socket answering) it knows nothing.
     */
    public boolean live() {
        for (KvFeed f : feeds) {
            if (f.lastSeq() >= 0 || f.replayed()) {
                return true;
            }
        }
        return false;
    }

    /** The block size of the replicas' events ({@link #DEFAULT_BLOCK_SIZE} before any). */
    public int blockSize() {
        for (KvFeed f : feeds) {
            int size = f.blocks().blockSize();
            if (size > 0) {
                return size;
            }
        }
        return DEFAULT_BLOCK_SIZE;
    }

    /** Per replica (URL order), the tokens at the head of {@code promptTokens} it holds (see {@link
     * ReplicaBlocks#heldTokens}). */
    public Match match(int[] promptTokens) {
        int blockSize = blockSize();
        long[] keys = BlockKeys.of(promptTokens, blockSize);
        int[] held = new int[feeds.size()];
        int[] blocks = new int[feeds.size()];
        for (int i = 0; i < held.length; i++) {
            ReplicaBlocks b = feeds.get(i).blocks();
            held[i] = (int) Math.round(b.heldTokens(keys, blockSize, cpuWeight));
            int n = 0;
            while (n < keys.length && b.holds(keys[n])) {
                n++;
            }
            blocks[i] = n;
        }
        return new Match(promptTokens.length, keys.length, held, blocks, keys);
    }

    /**
     * @param promptTokens the prompt's length in tokens
     * @param promptBlocks its full blocks
     * @param heldTokens per replica, the weighted tokens of its leading blocks held there, or about to be (blocks
     *                   of requests just routed there, see {@link #routed})
     * @param heldBlocks per replica, its leading blocks held there in any medium per its events (traces, logs)
     * @param keys the prompt's block keys, for {@link #routed}
     */
    public record Match(int promptTokens, int promptBlocks, int[] heldTokens, int[] heldBlocks, long[] keys) {
    }
}
