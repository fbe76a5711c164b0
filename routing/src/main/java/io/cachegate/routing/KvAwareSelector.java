package io.cachegate.routing;

import java.util.List;
import java.util.OptionalLong;

/**
 * The replica for a request by the engines' own record (vLLM's KV-cache events): the one holding the most of the
 * prompt, unless its load exceeds {@code load_factor × the others' mean + 4,096 tokens} (prefix affinity's bound) or
 * its first token would come more than half the prompt's prefill later than elsewhere; among equal holders, and for a
 * prompt that no replica holds, the one its first block hashes to (rendezvous hashing, under the same bounds), so
 * every gateway places a prefix on the same replica without asking the others. Otherwise the replica whose first
 * token comes soonest. A first token waits for the tokens the replica still has to prefill for this gateway
 * ({@link Replica#prefillBacklog}: an engine prefills one step at a time) and then for the prompt's own uncached ones.
 *
 * <p>Why sticky and not the soonest outright: a prefix recomputed elsewhere costs that replica a whole prefill and
 * evicts another prefix there. Under eviction pressure sending a prefix held nowhere to the least loaded replica
 * scattered every prefix over every replica (docs/benchmarks.md, issue 33); the hash sends it back where it was. But
 * the hash splits a dozen prefixes unevenly over three replicas, and where prefills share the engine the replica with
 * the most queues: the bound on the wait moves the overflow (docs/benchmarks.md, thirteenth session).
 */
final class KvAwareSelector {

    /**
     * How much later, as a share of the prompt's whole prefill, a holder's first token may come than the soonest
     * replica's before the request goes to the soonest: half a prefill keeps a prefix where it is held when its
     * holder is a little behind, and moves it when the holder's queue of prefills is longer than recomputing it.
     */
    static final double PREFILL_TOLERANCE = 0.5;

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
        long[] waits = new long[loads.length];
        long fewest = Long.MAX_VALUE;
        long most = 0;
        long soonest = Long.MAX_VALUE;
        for (int i = 0; i < waits.length; i++) {
            Replica r = candidates.get(i);
            int u = uncached[r.position];
            waits[i] = Replica.saturatedAdd(Math.max(0, r.prefillBacklog), u);
            fewest = Math.min(fewest, u);
            most = Math.max(most, u);
            soonest = Math.min(soonest, waits[i]);
        }
        if (key.isEmpty()) {
            return leastLoaded.selectAmong(candidates, waits, null);
        }
        long bound = Replica.saturatedAdd(soonest, (long) (PREFILL_TOLERANCE * most));
        int[] order = Rendezvous.order(candidates, key.getAsLong());
        for (int i : order) {
            if (uncached[candidates.get(i).position] == fewest && waits[i] <= bound
                    && !PrefixAffinitySelector.saturated(i, loads, loadFactor, loadSlack)) {
                return i;
            }
        }
        // The holders of the most wait too long behind other prefills, or are saturated: the soonest first token
        // among the unsaturated (then the least loaded, then the hash's order); all saturated, among all.
        int best = -1;
        for (int i : order) {
            if (!PrefixAffinitySelector.saturated(i, loads, loadFactor, loadSlack) && sooner(i, best, waits, loads)) {
                best = i;
            }
        }
        if (best >= 0) {
            return best;
        }
        for (int i : order) {
            if (sooner(i, best, waits, loads)) {
                best = i;
            }
        }
        return best;
    }

    private static boolean sooner(int i, int best, long[] waits, long[] loads) {
        return best < 0 || waits[i] < waits[best] || (waits[i] == waits[best] && loads[i] < loads[best]);
    }
}
