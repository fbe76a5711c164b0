package io.cachegate.routing;

import java.util.List;
import java.util.random.RandomGenerator;

/**
 * Fewest in-flight tokens (plus external load). When several tie, two of them are drawn at random and
 * the one with fewer in-flight requests wins (power of two choices), so ties, common when idle or
 * with uniform costs, neither herd onto the first replica nor ignore request counts.
 */
final class LeastLoadedSelector implements ReplicaSelector {

    private final RandomGenerator random;

    LeastLoadedSelector(RandomGenerator random) {
        this.random = random;
    }

    @Override
    public int select(List<Replica> candidates, long[] loads, int[] matches) {
        return selectAmong(candidates, loads, null);
    }

    /** Least loaded among the candidates whose flag in {@code only} is set (all when null). */
    int selectAmong(List<Replica> candidates, long[] loads, boolean[] only) {
        long min = Long.MAX_VALUE;
        int ties = 0;
        for (int i = 0; i < candidates.size(); i++) {
            if (only != null && !only[i]) {
                continue;
            }
            if (loads[i] < min) {
                min = loads[i];
                ties = 1;
            } else if (loads[i] == min) {
                ties++;
            }
        }
        if (ties == 1) {
            return nthTied(candidates, loads, only, min, 0);
        }
        int a = random.nextInt(ties);
        int b = random.nextInt(ties - 1);
        if (b >= a) {
            b++;
        }
        int first = nthTied(candidates, loads, only, min, a);
        int second = nthTied(candidates, loads, only, min, b);
        return candidates.get(second).inflightRequests < candidates.get(first).inflightRequests ? second : first;
    }

    private static int nthTied(List<Replica> candidates, long[] loads, boolean[] only, long min, int n) {
        int seen = 0;
        for (int i = 0; i < candidates.size(); i++) {
            if ((only == null || only[i]) && loads[i] == min && seen++ == n) {
                return i;
            }
        }
        throw new IllegalStateException("tie " + n + " not found");
    }
}
