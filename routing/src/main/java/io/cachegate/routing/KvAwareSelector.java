package io.cachegate.routing;

import java.util.List;

/**
 * The replica where the request would finish its prefill soonest by the engines' own record: the tokens already in
 * flight there plus the prompt tokens it would have to prefill, which its KV cache does not hold (per vLLM's
 * KV-cache events). Holding a long prefix wins until the holder's queue costs more than recomputing the prefix
 * elsewhere; ties go to the least loaded. Without the events' figures, {@link ReplicaSet} uses prefix affinity.
 */
final class KvAwareSelector implements ReplicaSelector {

    private final LeastLoadedSelector leastLoaded;

    KvAwareSelector(LeastLoadedSelector leastLoaded) {
        this.leastLoaded = leastLoaded;
    }

    /** @param uncached per replica position, the prompt tokens it would prefill */
    @Override
    public int select(List<Replica> candidates, long[] loads, int[] uncached) {
        long[] costs = new long[loads.length];
        for (int i = 0; i < costs.length; i++) {
            costs[i] = Replica.saturatedAdd(loads[i], uncached[candidates.get(i).position]);
        }
        return leastLoaded.selectAmong(candidates, costs, null);
    }
}
