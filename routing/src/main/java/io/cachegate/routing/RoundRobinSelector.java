package io.cachegate.routing;

import java.util.List;

/** Each replica in turn, in configured order; one that cannot take the request is skipped this round. */
final class RoundRobinSelector implements ReplicaSelector {

    private final int replicas;
    private int next;

    RoundRobinSelector(int replicas) {
        this.replicas = replicas;
    }

    @Override
    public int select(List<Replica> candidates, long[] loads, int[] matches) {
        int best = 0;
        int bestDistance = Integer.MAX_VALUE;
        for (int i = 0; i < candidates.size(); i++) {
            int distance = Math.floorMod(candidates.get(i).position - next, replicas);
            if (distance < bestDistance) {
                bestDistance = distance;
                best = i;
            }
        }
        next = (candidates.get(best).position + 1) % replicas;
        return best;
    }
}
