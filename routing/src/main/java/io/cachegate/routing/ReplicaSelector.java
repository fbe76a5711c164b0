package io.cachegate.routing;

import io.cachegate.config.Balance;
import io.cachegate.config.PrefixAffinitySettings;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * One balancing strategy: picks among candidates that are already known healthy, not excluded and
 * with room. Called under the {@link ReplicaSet}'s lock, so implementations may keep unsynchronised
 * state and must not block.
 */
interface ReplicaSelector {

    /**
     * @param candidates non-empty, in replica order
     * @param loads the load of each candidate, same indexes as {@code candidates}
     * @param matches leading prefix blocks each replica likely holds, indexed by {@link Replica#position};
     *     null when the request has no prefix blocks
     * @return the index in {@code candidates} of the chosen replica
     */
    int select(List<Replica> candidates, long[] loads, int[] matches);

    static ReplicaSelector of(Balance balance, PrefixAffinitySettings affinity, RandomGenerator random,
                              int replicas) {
        LeastLoadedSelector leastLoaded = new LeastLoadedSelector(random);
        return switch (balance) {
            case LEAST_LOADED -> leastLoaded;
            // kv_aware falls back to prefix affinity for a request without KV figures (see ReplicaSet#tryAcquire)
            case PREFIX_AFFINITY, KV_AWARE -> new PrefixAffinitySelector(affinity, leastLoaded);
            case ROUND_ROBIN -> new RoundRobinSelector(replicas);
        };
    }
}
