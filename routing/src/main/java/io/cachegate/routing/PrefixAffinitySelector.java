package io.cachegate.routing;

import io.cachegate.config.PrefixAffinitySettings;
import java.util.List;

/**
 * Sticky until saturated: the candidate holding the longest leading run of the request's prefix
 * blocks (least loaded among equals), unless its load exceeds {@code loadFactor × mean load of the
 * other candidates + loadSlackTokens}; then, or when no candidate holds even the first block, the
 * least loaded. Re-computing a cached prefix elsewhere costs less than queueing behind a hot replica.
 */
final class PrefixAffinitySelector implements ReplicaSelector {

    private final double loadFactor;
    private final long loadSlack;
    private final LeastLoadedSelector leastLoaded;

    PrefixAffinitySelector(PrefixAffinitySettings settings, LeastLoadedSelector leastLoaded) {
        this.loadFactor = settings.loadFactor();
        this.loadSlack = settings.loadSlackTokens();
        this.leastLoaded = leastLoaded;
    }

    @Override
    public int select(List<Replica> candidates, long[] loads, int[] matches) {
        if (matches == null) {
            return leastLoaded.select(candidates, loads, null);
        }
        int longest = 0;
        for (Replica r : candidates) {
            longest = Math.max(longest, matches[r.position]);
        }
        if (longest == 0) {
            return leastLoaded.select(candidates, loads, null);
        }
        boolean[] holders = new boolean[candidates.size()];
        for (int i = 0; i < candidates.size(); i++) {
            holders[i] = matches[candidates.get(i).position] == longest;
        }
        int sticky = leastLoaded.selectAmong(candidates, loads, holders);
        return saturated(sticky, loads, loadFactor, loadSlack) ? leastLoaded.select(candidates, loads, null) : sticky;
    }

    /** Whether {@code chosen}'s load exceeds {@code loadFactor × mean load of the others + loadSlack}. */
    static boolean saturated(int chosen, long[] loads, double loadFactor, long loadSlack) {
        if (loads.length < 2) {
            return false;
        }
        double othersTotal = 0;
        for (int i = 0; i < loads.length; i++) {
            if (i != chosen) {
                othersTotal += loads[i];
            }
        }
        double mean = othersTotal / (loads.length - 1);
        return loads[chosen] > loadFactor * mean + loadSlack;
    }
}
