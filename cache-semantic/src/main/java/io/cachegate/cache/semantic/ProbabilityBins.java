package io.cachegate.cache.semantic;

/**
 * Bins of a probability by its distance from 1 in decades, finer near 1, where a budget's decisions are: 0.9 is
 * bin 4, 0.97 bin 6, 0.99 bin 8, 0.999 bin 12. Shared by the route calibration of {@link HitEvidence} and the
 * fitted calibration of {@link NeighbourhoodAgreement}, so both cut the same ranges.
 */
public final class ProbabilityBins {

    /** How many bins there are; the last holds everything closer to 1. */
    public static final int COUNT = 20;

    private ProbabilityBins() {
    }

    public static int of(double p) {
        return Math.max(0, Math.min(COUNT - 1, (int) (-4 * Math.log10(Math.max(1e-9, 1 - p)))));
    }
}
