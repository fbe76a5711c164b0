package io.cachegate.cache.semantic;

import java.util.Arrays;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The error budget's prior for a candidate whose answer other neighbours share: the probability that it answers
 * the query, from how strongly the query's neighbourhood agrees on that answer. A k-nearest-neighbour vote, read
 * as a confidence: one entry at cosine 0.93 says little, three of the five nearest giving the same answer while
 * the nearest entry with another answer is further away say much more.
 *
 * <p>Features of the candidate's answer group among the neighbours (at most {@link #NEIGHBOURS}, best first):
 * its best cosine, its share of the neighbours' weight (each neighbour weighs {@code exp((s - s_1) / 0.05)}, as
 * a logit), how many of them it holds (log), and its margin over the best neighbour with another answer (or over
 * the floor when there is none). A logistic regression over them, then calibrated per bin of its probability
 * (a plain logistic curve is under-confident near 1 here: of the examples it put between 0.97 and 0.994,
 * 99.1% were right). Both fitted by {@code cachegate fit-agreement --intents banking77_train.tsv --intent-limit 8000
 * --intents clinc150_train.tsv --intent-limit 20000} on leave-one-out neighbourhoods of those rows (the
 * BANKING77 slice is the benchmark's warm stream, never its queries) and checked on held-out rows
 * (docs/caches.md). Defined only for a group of two or more neighbours: a lone entry is judged by the pair
 * classifier.
 */
public final class NeighbourhoodAgreement {

    /** Neighbours the vote sees; the fit used this many. */
    public static final int NEIGHBOURS = 10;
    /** A candidate with agreement needs this cosine, whatever the configured threshold (the fit's floor). */
    public static final float FLOOR = 0.85f;

    private static final double TEMPERATURE = 0.05;
    private static final double MAX_SHARE = 0.999;
    // Written by cachegate fit-agreement (docs/caches.md, "The error budget"); see the class comment.
    // best cosine (x10 from 0.9), share (logit), members (log), margin (x10), intercept
    private static final double[] WEIGHTS = {-0.0235, 0.2983, 1.6270, 2.8575, -2.3336};
    // the share of right examples per bin of the regression's probability (isotonic; NaN: no examples)
    private static final double[] CALIBRATED = {0.1496, 0.5319, 0.7395, 0.9063, 0.9417, 0.9666, 0.9910, 0.9910,
        0.9910, 0.9943, 0.9959, 0.9966, 0.9975, 0.9983, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
        Double.NaN};

    /** The fit in force, as text: what {@link EvidenceFile#fingerprint} hashes. */
    static String parameters() {
        return Arrays.toString(WEIGHTS) + Arrays.toString(CALIBRATED);
    }

    private final AnswerGroups groups;
    private final double[] weights;
    private final double[] calibration;

    public NeighbourhoodAgreement(AnswerGroups groups) {
        this(groups, WEIGHTS, CALIBRATED);
    }

    /**
     * With another fit's weights and bins (as {@code cachegate fit-agreement} prints them): how {@code eval-semantic
     * --replay} measures a fit on one data set against streams of the others.
     */
    public NeighbourhoodAgreement(AnswerGroups groups, double[] weights, double[] calibration) {
        if (weights.length != FEATURES + 1 || calibration.length != ProbabilityBins.COUNT) {
            throw new IllegalArgumentException("agreement needs " + (FEATURES + 1) + " weights and "
                    + ProbabilityBins.COUNT + " bins, got " + weights.length + " and " + calibration.length);
        }
        this.groups = groups;
        this.weights = weights.clone();
        this.calibration = calibration.clone();
    }

    /**
     * The probability that {@code candidate} answers the query, or NaN when no other neighbour shares its answer
     * (or its answer is unknown here).
     *
     * @param neighbours the query's neighbours, best first; those past {@link #NEIGHBOURS} are not counted
     */
    public double probability(Neighbour candidate, List<Neighbour> neighbours) {
        double[] x = features(candidate, neighbours, groups::group);
        return x == null ? Double.NaN : calibrated(regression(weights, x), calibration);
    }

    /** The shipped model's probability for {@link #features}: the regression's, calibrated by its bin. */
    public static double probability(double[] features) {
        return calibrated(regression(WEIGHTS, features), CALIBRATED);
    }

    /** The logistic regression's probability: {@code weights} ends with the intercept. */
    public static double regression(double[] weights, double[] features) {
        double z = weights[FEATURES];
        for (int i = 0; i < FEATURES; i++) {
            z += weights[i] * features[i];
        }
        return 1 / (1 + Math.exp(-z));
    }

    /** {@code p} replaced by its {@link ProbabilityBins} bin's calibrated probability; NaN there keeps {@code p}. */
    public static double calibrated(double p, double[] calibration) {
        double c = calibration[ProbabilityBins.of(p)];
        return Double.isNaN(c) ? p : c;
    }

    /** How many features {@link #features} computes; the weights add an intercept. */
    public static final int FEATURES = 4;

    /**
     * The features of {@code candidate}'s answer group among the neighbours (best first), or null when fewer than
     * two of them share its answer or its answer is unknown ({@code groupOf} gives {@link AnswerGroups#UNKNOWN}).
     * Public for the fit ({@code cachegate fit-agreement}), which groups by label.
     */
    public static double[] features(Neighbour candidate, List<Neighbour> neighbours, ToLongFunction<String> groupOf) {
        long group = groupOf.applyAsLong(candidate.entryKey());
        if (group == AnswerGroups.UNKNOWN || neighbours.isEmpty()) {
            return null;
        }
        int n = Math.min(neighbours.size(), NEIGHBOURS);
        double top = neighbours.get(0).similarity();
        double total = 0;
        double mine = 0;
        int members = 0;
        double best = candidate.similarity();
        double bestOther = FLOOR;
        for (int i = 0; i < n; i++) {
            Neighbour x = neighbours.get(i);
            double weight = Math.exp((x.similarity() - top) / TEMPERATURE);
            total += weight;
            if (x.entryKey().equals(candidate.entryKey()) || groupOf.applyAsLong(x.entryKey()) == group) {
                mine += weight;
                members++;
                best = Math.max(best, x.similarity());
            } else {
                bestOther = Math.max(bestOther, x.similarity());
            }
        }
        if (members < 2) {
            return null;
        }
        double share = Math.min(mine / total, MAX_SHARE);
        return new double[] {(best - 0.9) * 10, Math.log(share / (1 - share)), Math.log(members),
                (best - bestOther) * 10};
    }
}
