package io.cachegate.routing;

import java.util.List;
import java.util.OptionalLong;

/**
 * The replica for a request by the engines' own record (vLLM's KV-cache events): the one holding the most of the
 * prompt, unless its load exceeds {@code load_factor × the others' mean + 4,096 tokens} (prefix affinity's bound);
 * among equal holders, and for a prompt that no replica holds, the one its first block hashes to (rendezvous hashing,
 * under the same bound), so every gateway places a prefix on the same replica without asking the others. When every
 * holder is saturated: the cheapest by in-flight tokens plus the prompt tokens it would prefill.
 *
 * <p>Why sticky and not the cheapest outright: a replica's in-flight tokens are mostly decoding or already
 * prefilled, which delays a new prompt's prefill far less than recomputing its prefix does, and a prefix recomputed
 * elsewhere evicts another there. Under eviction pressure sending a prefix held nowhere to the least loaded replica
 * scattered every prefix over every replica (docs/benchmarks.md, issue 33); the hash sends it back where it was.
 */
final class KvAwareSelector {

    private final double loadFactor;
    private final long loadSlack;
    private final LeastLoadedSelector leastLoaded;

    KvAwareSelector(double loadFactor, long loadSlack, LeastLoadedSelector leastLoaded) {
        this.loadFactor = loadFactor;
        this.loadSlack = loadSlack;
        this.leastLoaded = leastLoaded;
    }

    /**
     * @param candidates non-empty, in replica order
     * @param loads the load of each candidate, same indexes as {@code candidates}
     * @param uncached per replica position, the prompt tokens it would prefill
     * @param key the prompt's placement key (the hash of its first block); empty for a prompt shorter than a block,
     *     which goes to the cheapest
     * @return the index in {@code candidates} of the chosen replica
     */
    int select(List<Replica> candidates, long[] loads, int[] uncached, OptionalLong key) {
        long[] costs = new long[loads.length];
        int fewest = Integer.MAX_VALUE;
        for (int i = 0; i < costs.length; i++) {
            int u = uncached[candidates.get(i).position];
            costs[i] = Replica.saturatedAdd(loads[i], u);
            fewest = Math.min(fewest, u);
        }
        if (key.isEmpty()) {
            return leastLoaded.selectAmong(candidates, costs, null);
        }
        int[] order = Rendezvous.order(candidates, key.getAsLong());
        for (int i : order) {
            if (uncached[candidates.get(i).position] == fewest
                    && !PrefixAffinitySelector.saturated(i, loads, loadFactor, loadSlack)) {
                return i;
            }
        }
        // Every holder of the most is saturated: the cheapest, ties in the hash's order.
        int best = order[0];
        for (int i : order) {
            if (costs[i] < costs[best]) {
                best = i;
            }
        }
        return best;
    }
}
