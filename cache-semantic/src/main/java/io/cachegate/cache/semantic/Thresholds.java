package io.cachegate.cache.semantic;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Shared by the decisions: threshold validation, tightening by a request, and a deterministic ranking. */
final class Thresholds {

    /** Most similar first; ties by entry key, so the order never depends on the index's. */
    static final Comparator<Neighbour> BEST_FIRST = Comparator.comparingDouble((Neighbour n) -> n.similarity())
            .reversed().thenComparing(Neighbour::entryKey);

    private Thresholds() {
    }

    static double validate(double threshold) {
        if (!(threshold > 0 && threshold <= 1)) {
            throw new IllegalArgumentException("threshold must be in (0, 1], was " + threshold);
        }
        return threshold;
    }

    /** The configured threshold, or the request's when that is stricter; NaN or a looser value is ignored. */
    static double effective(double configured, double requested) {
        return requested > configured ? Math.min(requested, 1.0) : configured;
    }

    /**
     * The neighbours at or above the threshold, best first. Compared in float, the similarity's precision: as
     * doubles, a similarity of {@code 0.9f} would fall short of a threshold of {@code 0.9}.
     */
    static List<Neighbour> candidates(List<Neighbour> neighbours, double threshold) {
        float floor = (float) threshold;
        List<Neighbour> above = new ArrayList<>(neighbours.size());
        for (Neighbour n : neighbours) {
            if (n.similarity() >= floor) {
                above.add(n);
            }
        }
        above.sort(BEST_FIRST);
        return above;
    }
}
