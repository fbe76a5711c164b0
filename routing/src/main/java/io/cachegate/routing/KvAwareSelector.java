package io.cachegate.routing;

import java.util.List;
import java.util.OptionalLong;

/**
 * The replica for a request by the engines' own record (vLLM's KV-cache events): the one holding the most of the
 * prompt, unless its load exceeds {@code load_factor × the others' mean + 4,096 tokens} (prefix affinity's bound);
 * among equal holders, and for a prompt that no replica holds, the one its first block hashes to (rendezvous hashing,
 * under the same bound), so every gateway places a prefix on the same replica without asking the others. A prompt
 * that no replica holds more of than the others (usually: none holds any) skips, in that order, a replica that
 * already holds more than its share of the distinct prefixes the replicas hold (their events' chain roots, the same
 * in every gateway: consistent hashing with bounded loads, the load being prefixes), so that a dozen prefixes hashed
 * over three replicas do not split 6/4/2 and overflow the one with six. When every holder is saturated: the cheapest
 * by in-flight tokens plus the prompt tokens it would prefill.
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
     * @param prefixes per replica position, the distinct prefixes it holds; null when unknown
     * @return the index in {@code candidates} of the chosen replica
     */
    int select(List<Replica> candidates, long[] loads, int[] uncached, OptionalLong key, int[] prefixes) {
        long[] costs = new long[loads.length];
        int fewest = Integer.MAX_VALUE;
        int most = 0;
        for (int i = 0; i < costs.length; i++) {
            int u = uncached[candidates.get(i).position];
            costs[i] = Replica.saturatedAdd(loads[i], u);
            fewest = Math.min(fewest, u);
            most = Math.max(most, u);
        }
        if (key.isEmpty()) {
            return leastLoaded.selectAmong(candidates, costs, null);
        }
        int[] order = Rendezvous.order(candidates, key.getAsLong());
        if (prefixes != null && fewest == most && candidates.size() > 1) {
            // Held by none more than the others: a new home, the first in the hash's order with room for one more
            // prefix, at most ceil((prefixes held + 1) / replicas) after it.
            long total = 0;
            for (Replica r : candidates) {
                total += prefixes[r.position];
            }
            long bound = (total + 1 + candidates.size() - 1) / candidates.size();
            for (int i : order) {
                if (prefixes[candidates.get(i).position] + 1 <= bound
                        && !PrefixAffinitySelector.saturated(i, loads, loadFactor, loadSlack)) {
                    return i;
                }
            }
        }
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
