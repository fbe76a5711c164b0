package io.cachegate.cache.semantic;

import java.util.Arrays;
import java.util.Locale;
import java.util.function.DoubleFunction;

/**
 * How the error budget's {@link ProbabilityBins#COUNT} nested classes share delta. Class {@code C_j} is "every
 * candidate of the scope whose prior is in bin j or above"; it <em>opens</em> (its candidates may be served) when the
 * always-valid bound on its error rate ({@link ErrorBound}) at its share of delta is at most the budget.
 *
 * <p>The shares are a weighted Bonferroni with a fallback chain (Wiens 2003; the graphical procedure of Bretz et al.
 * 2009 with the graph {@code C_19 -> C_18 -> ... -> C_0}): each class starts with {@code delta * w_j} (weights fixed in
 * advance, summing to at most 1), and a class that opens hands its share to the next class down, so a class tests at
 * {@code delta} times its own weight plus the weights of the unbroken run of open classes directly above it. With
 * time-uniform bounds this holds at every moment at once: let {@code I} be the classes whose true rate is above the
 * budget; as long as no class of {@code I} has opened, every open class is outside {@code I}, so a class {@code i} of
 * {@code I} tests at most at {@code delta} times its weight in the graph with every class outside {@code I} removed,
 * and those weights sum to at most 1 over {@code I}. A class of {@code I} opening first therefore needs its bound at
 * that level to exclude its true rate at some moment, which happens with probability at most that level (Ville's
 * inequality): with probability at least {@code 1 - delta}, no class above the budget ever opens. Without the chain
 * it is the plain weighted Bonferroni; uniform weights without the chain are the earlier {@code delta / 20} each.
 *
 * <p>Immutable and thread-safe.
 */
public final class ClassSpending {

    /**
     * How delta is shared, fixed before any stream: the weights by class (index j, summing to at most 1) for a budget,
     * whether an open class hands its share down, and how far under the budget the mixture's prior mean lies ({@code
     * budget / priorShrink}).
     */
    public record Plan(String name, DoubleFunction<double[]> weightsFor, boolean chain, double priorShrink) {

        /** delta / 20 for each class, nothing handed on, the prior's mean at the budget: the default. */
        public static final Plan BONFERRONI = parse("uniform/flat/prior=1");

        /**
         * The chained plan: equal weights (1/9) on classes 4-12, the priors from 0.9 to 0.999 where the agreement's
         * calibration puts its values (every fit measured tops out at 0.999, in bin 11) and every budget from 0.1% to
         * 10% has its class; handed down the chain, so the classes below 4 open on what C_4 hands them and the
         * empty classes above 12 cost nothing; the prior's mean at a third of the budget. Fixed before any stream.
         * More hits early than {@link #BONFERRONI}, and more replayed runs over their budget (docs/caches.md), so not
         * the default.
         */
        public static final Plan CHAINED = parse("band=4-12/chain/prior=3");

        /**
         * What the gateway serves under: {@link #BONFERRONI}. The chained plan opened classes sooner but, where verdicts
         * drift as the cache fills (BANKING77), ended 10 of 54 replayed runs over their budget against 6 of 54.
         */
        public static final Plan DEFAULT = BONFERRONI;

        public Plan {
            if (!(priorShrink >= 1)) {
                throw new IllegalArgumentException("priorShrink must be >= 1, was " + priorShrink);
            }
        }

        /** The weights by class for {@code budget}, checked. */
        public double[] weights(double budget) {
            double[] weights = weightsFor.apply(budget);
            if (weights.length != ProbabilityBins.COUNT) {
                throw new IllegalArgumentException("one weight per class: " + ProbabilityBins.COUNT + ", not "
                        + weights.length);
            }
            double sum = 0;
            for (double w : weights) {
                if (!(w >= 0)) {
                    throw new IllegalArgumentException("weights must be >= 0: " + Arrays.toString(weights));
                }
                sum += w;
            }
            if (!(sum > 0 && sum <= 1 + 1e-9)) {
                throw new IllegalArgumentException("weights must sum to a share in (0, 1], was " + sum);
            }
            return weights;
        }

        /**
         * The class whose floor prior's error is the budget: the bin of {@code 1 - budget} (8 at 1%, 9 at 0.5%, 6 at
         * 2%), computed from the budget itself so that 1% is not put a bin low by rounding.
         */
        public static int budgetClass(double budget) {
            int bin = (int) Math.floor(-4 * Math.log10(budget) + 1e-9);
            return Math.max(0, Math.min(ProbabilityBins.COUNT - 1, bin));
        }

        /**
         * A plan from its name: {@code bonferroni} (the default), {@code default}, {@code chained}, or {@code WEIGHTS[/chain|/flat]
         * [/prior=S]} (chain and prior 1 unless given) with WEIGHTS one of {@code uniform}, {@code top=J} (equal
         * weights on classes J..19), {@code band=A-B} (equal weights on classes A..B), {@code rel=A..B} (equal weights
         * on the classes A..B away from the budget's class {@link #budgetClass}; {@code rel=A..B@X}: X on the first,
         * the rest shared equally by the others) or {@code geometric=R} (class j's weight proportional to R^(19-j)):
         * for {@code eval-semantic --spending}.
         */
        public static Plan parse(String spec) {
            String s = spec.strip().toLowerCase(Locale.ROOT);
            if (s.equals("bonferroni")) {
                return BONFERRONI;
            }
            if (s.equals("default")) {
                return DEFAULT;
            }
            if (s.equals("chained")) {
                return CHAINED;
            }
            String[] parts = s.split("/");
            DoubleFunction<double[]> w = weightsOf(parts[0]);
            boolean chain = true;
            double shrink = 1;
            for (int i = 1; i < parts.length; i++) {
                if (parts[i].equals("chain")) {
                    chain = true;
                } else if (parts[i].equals("flat")) {
                    chain = false;

                } else if (parts[i].startsWith("prior=")) {
                    shrink = Double.parseDouble(parts[i].substring("prior=".length()));
                } else {
                    throw new IllegalArgumentException("unknown part '" + parts[i] + "' of spending plan '" + spec
                            + "': chain, flat or prior=S");
                }
            }
            return new Plan(s, w, chain, shrink);
        }

        private static DoubleFunction<double[]> weightsOf(String name) {
            int count = ProbabilityBins.COUNT;
            if (name.equals("uniform")) {
                return budget -> band(0, count - 1);
            } else if (name.startsWith("top=")) {
                int from = Integer.parseInt(name.substring("top=".length()));
                return budget -> band(from, count - 1);
            } else if (name.startsWith("band=")) {
                String[] ends = name.substring("band=".length()).split("-");
                int from = Integer.parseInt(ends[0]);
                int to = Integer.parseInt(ends[1]);
                band(from, to); // checked now
                return budget -> band(from, to);
            } else if (name.startsWith("rel=")) {
                String body = name.substring("rel=".length());
                double first = Double.NaN;
                int at = body.indexOf('@');
                if (at >= 0) {
                    first = Double.parseDouble(body.substring(at + 1));
                    body = body.substring(0, at);
                }
                String[] ends = body.split("\\.\\.");
                int from = Integer.parseInt(ends[0]);
                int to = Integer.parseInt(ends[1]);
                double firstShare = first;
                if (from > to || !(Double.isNaN(firstShare) || (firstShare > 0 && firstShare <= 1))) {
                    throw new IllegalArgumentException("rel=A..B[@X] needs A <= B and X in (0, 1]: " + name);
                }
                return budget -> relative(budgetClass(budget), from, to, firstShare);
            } else if (name.startsWith("geometric=")) {
                double r = Double.parseDouble(name.substring("geometric=".length()));
                return budget -> {
                    double[] w = new double[count];
                    double sum = 0;
                    for (int j = 0; j < count; j++) {
                        w[j] = Math.pow(r, count - 1 - j);
                        sum += w[j];
                    }
                    for (int j = 0; j < count; j++) {
                        w[j] /= sum;
                    }
                    return w;
                };
            }
            throw new IllegalArgumentException("unknown weights '" + name
                    + "': uniform, top=J, band=A-B, rel=A..B[@X] or geometric=R");
        }

        /** Equal weights on classes from..to. */
        static double[] band(int from, int to) {
            int count = ProbabilityBins.COUNT;
            if (from < 0 || to >= count || from > to) {
                throw new IllegalArgumentException("a band of classes needs 0 <= from <= to <= " + (count - 1)
                        + ", was " + from + "-" + to);
            }
            double[] w = new double[count];
            Arrays.fill(w, from, to + 1, 1.0 / (to - from + 1));
            return w;
        }

        /**
         * Weights on the classes {@code anchor + from .. anchor + to}, cut to the classes there are: {@code first} (if
         * not NaN) on the first of them and the rest equally on the others, else all equally.
         */
        static double[] relative(int anchor, int from, int to, double first) {
            int count = ProbabilityBins.COUNT;
            int lo = Math.max(0, Math.min(count - 1, anchor + from));
            int hi = Math.max(lo, Math.min(count - 1, anchor + to));
            if (Double.isNaN(first) || lo == hi) {
                return band(lo, hi);
            }
            double[] w = new double[count];
            w[lo] = first;
            for (int j = lo + 1; j <= hi; j++) {
                w[j] = (1 - first) / (hi - lo);
            }
            return w;
        }
    }

    private final double budget;
    private final double delta;
    private final Plan plan;
    /** bounds[j][top]: class j's bound at delta times the weights of classes j..top, null when that is 0. */
    private final ErrorBound[][] bounds;

    public ClassSpending(double budget, double delta, Plan plan) {
        if (!(delta > 0 && delta < 1)) {
            throw new IllegalArgumentException("delta must be in (0, 1), was " + delta);
        }
        this.budget = budget;
        this.delta = delta;
        this.plan = plan;
        double[] w = plan.weights(budget);
        int count = ProbabilityBins.COUNT;
        this.bounds = new ErrorBound[count][count];
        for (int j = 0; j < count; j++) {
            double level = 0;
            for (int top = j; top < count; top++) {
                level += w[top];
                double share = Math.min(1, level) * delta;
                bounds[j][top] = share > 0 ? new ErrorBound(budget, share, budget / plan.priorShrink()) : null;
                if (!plan.chain()) {
                    break;
                }
            }
        }
    }

    public Plan plan() {
        return plan;
    }

    public double budget() {
        return budget;
    }

    public double delta() {
        return delta;
    }

    /**
     * Each class's bound from the verdicts by bin: at the share it opened at for an open class (at most the budget),
     * at its final share for a closed one (above the budget, or 1 with no share).
     *
     * @param right right verdicts by bin
     * @param wrong wrong verdicts by bin
     */
    public double[] classUpper(long[] right, long[] wrong) {
        int count = ProbabilityBins.COUNT;
        long[] n = new long[count];
        long[] k = new long[count];
        long r = 0;
        long w = 0;
        for (int j = count - 1; j >= 0; j--) {
            r += right[j];
            w += wrong[j];
            n[j] = r + w;
            k[j] = w;
        }
        boolean[] open = new boolean[count];
        double[] upper = new double[count];
        Arrays.fill(upper, 1);
        // One pass from the top suffices: a class's share depends only on the classes above it.
        for (int j = count - 1; j >= 0; j--) {
            int top = j;
            if (plan.chain()) {
                while (top + 1 < count && open[top + 1]) {
                    top++;
                }
            }
            ErrorBound bound = bounds[j][top];
            upper[j] = bound == null ? 1 : bound.upper(k[j], n[j]);
            open[j] = upper[j] <= budget;
        }
        return upper;
    }

    /**
     * Class {@code j}'s bound at the share it tests at when the classes marked in {@code open} are open (under the
     * chain: its own weight and those of the unbroken run of open classes directly above it); null with no share.
     */
    ErrorBound boundFor(int j, boolean[] open) {
        int top = j;
        if (plan.chain()) {
            while (top + 1 < open.length && open[top + 1]) {
                top++;
            }
        }
        return bounds[j][top];
    }

    /** Per bin b: the lowest bound among the classes holding it (j <= b); at most the budget when one is open. */
    public double[] nestedUpper(long[] right, long[] wrong) {
        double[] classes = classUpper(right, wrong);
        double[] upper = new double[classes.length];
        double best = 1;
        for (int b = 0; b < classes.length; b++) {
            best = Math.min(best, classes[b]);
            upper[b] = best;
        }
        return upper;
    }
}
