package io.cachegate.cache.semantic;

import java.util.Locale;

/**
 * Verdicts that follow a drifting class: what an open class of the error budget must keep showing to stay open.
 * The {@link ClassSpending} bound opens class {@code C_j} on all its verdicts since the start; where the verdicts
 * drift as the cache fills, a class opened on early, right verdicts serves at a rate its evidence never saw. Every
 * lever here only keeps closed a class the bound would open, so the bound's guarantee is unchanged:
 *
 * <ul>
 *   <li><b>a drift test since opening</b> ({@code delta > 0}): from the moment a class opens, an e-process on its
 *       verdicts (audits of served hits and explorations) tests "each of them is wrong with probability at most the
 *       budget": the mean over alternatives {@code q = budget * m} ({@link #MULTIPLES}, capped at 1/2) of the
 *       likelihood ratios {@code (q / budget)^wrong ((1 - q) / (1 - budget))^right}, each summed over restarts
 *       ({@link State#watchStep}). Each term is a non-negative supermartingale for every rate at or under the budget
 *       (a verdict multiplies it by {@code p q / budget + (1 - p)(1 - q) / (1 - budget) <= 1} when
 *       {@code p <= budget < q}) and they start at a total of at most 1, so by Ville's inequality the test ever
 *       reaches {@code 1 / delta} with probability at most {@code delta}: a class that stays within the budget is
 *       closed by it in at most {@code delta} of its openings. When it rejects, the class closes.</li>
 *   <li><b>re-earning</b> ({@code reearn}; always after the drift test closed it): a class that closes after it opened
 *       (by the drift test, or because a wrong verdict put its bound back over the budget) reopens only when its
 *       verdicts since the closing alone bring its bound (at its share) within the budget, as a fresh class would;
 *       the right verdicts it opened on no longer carry it.</li>
 *   <li>levers measured and not in the default (docs/caches.md): <b>a recent window</b> ({@code window = C}: the bound
 *       over the newest {@code C / budget} verdicts as well), <b>a fresh class's audits</b> ({@code audit = R@C}:
 *       hits audited at rate R until the classes serving them have {@code C / budget} verdicts since opening) and
 *       <b>the floor bin's audits</b> ({@code floor = R}: hits in the lowest bin with verdicts of the lowest open
 *       class audited at rate R). The audit rates are the replay's ({@code eval-semantic --watch}); the gateway
 *       audits at {@code audit.rate}.</li>
 * </ul>
 *
 * Immutable; the state of one scope's classes is {@link State}, guarded by its owner's lock.
 */
public record ClassWatch(String name, double delta, double window, double auditRate, double auditSpan,
                         double floorAudit, boolean reearn) {

    /**
     * Per class, whether it must re-earn its opening and the class's verdicts and wrong ones when it closed: the part
     * of a {@link State} that a restart must not forget (a class closed on drift would otherwise reopen on the bound
     * of all its verdicts).
     */
    record Closed(boolean[] closed, long[] markN, long[] markK) {
    }

    /** How far above the budget the drift test's alternatives lie. */
    static final double[] MULTIPLES = {1.5, 2, 3, 5, 10, 20};

    /** Nothing watched: the bound on all verdicts alone, as before. */
    public static final ClassWatch OFF = new ClassWatch("off", 0, 0, 0, 0, 0, false);

    /** The drift test at delta 0.05 per opening, no window. */
    public static final ClassWatch CLOSE = new ClassWatch("close", 0.05, 0, 0, 0, 0, false);

    /**
     * What the gateway serves under: the drift test at delta 0.05 per opening, and a class that closes after opening
     * re-earns its opening on the verdicts after the closing. On the 54 replayed runs of docs/caches.md: 5 over their
     * budget against 6, 1.2-1.4% fewer hits at 1% and 2%.
     */
    public static final ClassWatch DEFAULT = new ClassWatch("close/reearn", 0.05, 0, 0, 0, 0, true);

    public ClassWatch {
        if (!(delta >= 0 && delta < 1)) {
            throw new IllegalArgumentException("the drift test's delta must be in [0, 1), was " + delta);
        }
        if (!(window >= 0)) {
            throw new IllegalArgumentException("the window must be >= 0 (verdicts times the budget), was " + window);
        }
        if (!(floorAudit >= 0 && floorAudit <= 1)) {
            throw new IllegalArgumentException("the floor bin's audit rate must be in [0, 1], was " + floorAudit);
        }
        if (!(auditRate >= 0 && auditRate <= 1) || !(auditSpan >= 0)) {
            throw new IllegalArgumentException("a fresh class's audits need a rate in [0, 1] and a span >= 0, was "
                    + auditRate + "@" + auditSpan);
        }
    }

    /**
     * {@code off}, {@code default}, or parts joined by '/': {@code close}, {@code close=DELTA}, {@code reearn},
     * {@code window=C}, {@code audit=RATE@C}, {@code floor=RATE}: for {@code eval-semantic --watch}.
     */
    public static ClassWatch parse(String spec) {
        String s = spec.strip().toLowerCase(Locale.ROOT);
        if (s.equals("off")) {
            return OFF;
        }
        if (s.equals("default")) {
            return DEFAULT;
        }
        double delta = 0;
        double window = 0;
        double auditRate = 0;
        double auditSpan = 0;
        double floorAudit = 0;
        boolean reearn = false;
        for (String part : s.split("/")) {
            if (part.equals("close")) {
                delta = CLOSE.delta();
            } else if (part.startsWith("close=")) {
                delta = Double.parseDouble(part.substring("close=".length()));
            } else if (part.startsWith("window=")) {
                window = Double.parseDouble(part.substring("window=".length()));
            } else if (part.startsWith("floor=")) {
                floorAudit = Double.parseDouble(part.substring("floor=".length()));
            } else if (part.equals("reearn")) {
                reearn = true;
            } else if (part.startsWith("audit=")) {
                String[] rs = part.substring("audit=".length()).split("@");
                auditRate = Double.parseDouble(rs[0]);
                auditSpan = Double.parseDouble(rs[1]);
            } else {
                throw new IllegalArgumentException("unknown part '" + part + "' of class watch '" + spec
                        + "': off, close, close=DELTA, window=C, audit=RATE@C, floor=RATE or reearn");
            }
        }
        return new ClassWatch(s, delta, window, auditRate, auditSpan, floorAudit, reearn);
    }

    /**
     * What the watch did to one scope's classes, or several scopes' summed. A verdict in bin b reaches every nested
     * class j <= b, so one verdict may close several at once: the counts are of verdicts, not classes. Closings by the
     * drift test ({@code driftClosings}) and, when it re-earns, verdicts that put an open class's bound back over the
     * budget and so make it re-earn its opening ({@code boundClosings}; a verdict that does both counts as drift);
     * verdicts that reopened a class on its verdicts since its closing ({@code reopenings}); and how many of the
     * {@link ProbabilityBins#COUNT} classes are closed that way now, waiting to re-earn ({@code closedNow}).
     */
    public record Figures(long driftClosings, long boundClosings, long reopenings, int closedNow) {

        /** Nothing closed, nothing re-earned. */
        public static final Figures NONE = new Figures(0, 0, 0, 0);

        /** The sum of both: a route's figures over its tenants' scopes. */
        public Figures plus(Figures other) {
            return new Figures(driftClosings + other.driftClosings, boundClosings + other.boundClosings,
                    reopenings + other.reopenings, closedNow + other.closedNow);
        }
    }

    public boolean off() {
        return delta == 0 && window == 0 && auditRate == 0 && floorAudit == 0 && !reearn;
    }

    /** A fresh state for one scope's classes under {@code spending}. */
    State start(ClassSpending spending) {
        return new State(this, spending);
    }

    /**
     * One scope's classes: which are open, the drift test of each open class, where a closed one must re-earn its
     * opening from, the newest verdicts of each. Not thread-safe: its owner's lock guards it.
     */
    static final class State {
        private static final int COUNT = ProbabilityBins.COUNT;
        /** What {@link #recompute} did, as bits. */
        private static final int BOUND_CLOSED = 1;
        private static final int REOPENED = 2;

        private final ClassWatch watch;
        private final ClassSpending spending;
        private final double budget;
        private final double[] stepWrong;
        private final double[] stepRight;
        private final double logThreshold;
        private final boolean[] open = new boolean[COUNT];
        private final boolean[] closed = new boolean[COUNT];
        private final long[] markN = new long[COUNT];
        private final long[] markK = new long[COUNT];
        private final long[] openedN = new long[COUNT];
        private final long[] lastN = new long[COUNT];
        private final long auditSpanVerdicts;
        private final long startEvery;
        private final double[][] logE;
        private final boolean[][] ring;
        private final int[] ringAt = new int[COUNT];
        private final int[] ringN = new int[COUNT];
        private final int[] ringK = new int[COUNT];
        private final double[] upper = new double[COUNT];
        /** Replaced, never changed, once computed: read outside the owner's lock. */
        private double[] nested = new double[COUNT];
        private long closings;
        /** Verdicts that closed a class by the drift test, by its bound (re-earning), or reopened one. */
        private long driftEvents;
        private long boundEvents;
        private long reopenEvents;

        State(ClassWatch watch, ClassSpending spending) {
            this.watch = watch;
            this.spending = spending;
            this.budget = spending.budget();
            int alternatives = MULTIPLES.length;
            this.stepWrong = new double[alternatives];
            this.stepRight = new double[alternatives];
            for (int i = 0; i < alternatives; i++) {
                double q = Math.min(0.5, budget * MULTIPLES[i]);
                stepWrong[i] = Math.log(q / budget);
                stepRight[i] = Math.log1p(-q) - Math.log1p(-budget);
            }
            this.logThreshold = watch.delta() > 0 ? Math.log(1 / watch.delta()) : Double.POSITIVE_INFINITY;
            this.logE = new double[COUNT][alternatives];
            for (double[] e : logE) {
                java.util.Arrays.fill(e, Double.NEGATIVE_INFINITY);
            }
            this.startEvery = Math.max(1, (long) Math.ceil(1 / budget));
            int size = watch.window() > 0 ? (int) Math.ceil(watch.window() / budget) : 0;
            this.ring = size > 0 ? new boolean[COUNT][size] : null;
            this.auditSpanVerdicts = (long) Math.ceil(watch.auditSpan() / budget);
            java.util.Arrays.fill(upper, 1);
            java.util.Arrays.fill(nested, 1);
        }

        /**
         * Takes the state from the counts alone (a state started on a scope that already has verdicts: every class
         * the bound opens is open, its drift test starting now).
         */
        void catchUp(long[] right, long[] wrong) {
            long[] n = new long[COUNT];
            long[] k = new long[COUNT];
            classCounts(right, wrong, n, k);
            recompute(n, k);
        }

        /** The classes that must re-earn their opening and the verdict counts they re-earn from: what a restart keeps. */
        Closed closed() {
            return new Closed(closed.clone(), markN.clone(), markK.clone());
        }

        /**
         * After {@link #catchUp} on the same counts: the classes {@code saved} kept closed are closed again, to
         * re-earn their opening on the verdicts after their marks, as they would have without the restart. (The drift
         * test of each open class starts afresh, as after a catch-up.)
         */
        void restore(Closed saved, long[] right, long[] wrong) {
            long[] n = new long[COUNT];
            long[] k = new long[COUNT];
            classCounts(right, wrong, n, k);
            for (int j = 0; j < COUNT; j++) {
                if (saved.closed()[j]) {
                    closed[j] = true;
                    open[j] = false;
                    markN[j] = Math.min(saved.markN()[j], n[j]);
                    markK[j] = Math.min(saved.markK()[j], k[j]);
                }
            }
            recompute(n, k);
        }

        /**
         * One more verdict in {@code bin}; {@code right} and {@code wrong} are the counts by bin with it.
         */
        void add(int bin, boolean isRight, long[] right, long[] wrong) {
            long[] n = new long[COUNT];
            long[] k = new long[COUNT];
            classCounts(right, wrong, n, k);
            boolean drift = false;
            for (int j = 0; j <= bin; j++) {
                if (ring != null) {
                    boolean[] r = ring[j];
                    if (ringN[j] == r.length) {
                        ringK[j] -= r[ringAt[j]] ? 1 : 0;
                    } else {
                        ringN[j]++;
                    }
                    r[ringAt[j]] = !isRight;
                    ringK[j] += isRight ? 0 : 1;
                    ringAt[j] = (ringAt[j] + 1) % r.length;
                }
                if (open[j] && watch.delta() > 0 && watchStep(j, isRight)) {
                    open[j] = false;
                    closed[j] = true;
                    markN[j] = n[j];
                    markK[j] = k[j];
                    closings++;
                    drift = true;
                }
            }
            int changes = recompute(n, k);
            driftEvents += drift ? 1 : 0;
            boundEvents += !drift && (changes & BOUND_CLOSED) != 0 ? 1 : 0;
            reopenEvents += (changes & REOPENED) != 0 ? 1 : 0;
        }

        /**
         * From the top, as {@link ClassSpending#classUpper}: a class's share depends only on the classes above it.
         * Returns {@link #BOUND_CLOSED} if it closed an open class to re-earn, {@link #REOPENED} if it reopened one.
         */
        private int recompute(long[] n, long[] k) {
            int changes = 0;
            for (int j = COUNT - 1; j >= 0; j--) {
                ErrorBound bound = spending.boundFor(j, open);
                double u = bound == null ? 1 : bound.upper(k[j], n[j]);
                if (bound != null && closed[j]) {
                    u = Math.max(u, bound.upper(k[j] - markK[j], n[j] - markN[j]));
                }
                if (bound != null && ring != null) {
                    u = Math.max(u, bound.upper(ringK[j], ringN[j]));
                }
                boolean nowOpen = u <= budget;
                if (!nowOpen && open[j] && watch.reearn()) {
                    closed[j] = true; // closed by the bound on all its verdicts: re-earned on those after, too
                    markN[j] = n[j];
                    markK[j] = k[j];
                    changes |= BOUND_CLOSED;
                }
                if (nowOpen && !open[j]) {
                    changes |= closed[j] ? REOPENED : 0;
                    closed[j] = false;
                    java.util.Arrays.fill(logE[j], Double.NEGATIVE_INFINITY);
                    openedN[j] = n[j];
                }
                lastN[j] = n[j];
                open[j] = nowOpen;
                upper[j] = u;
            }
            double[] fresh = new double[COUNT];
            double best = 1;
            for (int b = 0; b < COUNT; b++) {
                best = Math.min(best, upper[b]);
                fresh[b] = best;
            }
            nested = fresh;
            return changes;
        }

        /** Per bin b: the lowest bound among the classes holding it (j <= b); the caller must not change it. */
        double[] nestedUpper() {
            return nested;
        }

        /**
         * One more verdict of open class {@code j} into its drift test; whether the test now rejects. Each alternative
         * {@code q} keeps {@code log E = log sum_m w_m prod_{t >= s_m} LR_q(x_t)}: a new start {@code s_m} every
         * {@code 1 / budget} verdicts since the opening, weighted {@code w_m = 1 / (m (m + 1))} (summing to 1), so a
         * drift long after the opening is not drowned by the right verdicts before it. Each term is a non-negative
         * supermartingale from its start for any rate at or under the budget, worth {@code w_m} there: the sum starts
         * at no more than 1 and Ville's inequality bounds its ever reaching {@code 1 / delta} by {@code delta}.
         */
        private boolean watchStep(int j, boolean isRight) {
            long since = lastN[j] - openedN[j]; // verdicts of the class since it opened, before this one
            double[] e = logE[j];
            if (since % startEvery == 0) {
                long m = since / startEvery + 1;
                double logW = -Math.log((double) m * (m + 1));
                for (int i = 0; i < e.length; i++) {
                    e[i] = logAdd(e[i], logW);
                }
            }
            for (int i = 0; i < e.length; i++) {
                e[i] += isRight ? stepRight[i] : stepWrong[i];
            }
            return logMeanExp(e) >= logThreshold;
        }

        private static double logAdd(double a, double b) {
            if (a == Double.NEGATIVE_INFINITY) {
                return b;
            }
            double max = Math.max(a, b);
            return max + Math.log(Math.exp(a - max) + Math.exp(b - max));
        }

        /**
         * The audit rate for a hit served in {@code bin}: the watch's fresh-class rate while every open class holding
         * the bin has had fewer than {@code auditSpan / budget} verdicts since it opened, else 0.
         */
        double auditRate(int bin) {
            if (watch.floorAudit() > 0) {
                for (int j = 0; j <= bin; j++) {
                    if (open[j]) {
                        // the lowest bin with verdicts of the lowest open class: the bins under it hold none
                        boolean floor = lastN[bin] == lastN[j];
                        return Math.max(floor ? watch.floorAudit() : 0, freshRate(bin));
                    }
                }
            }
            return freshRate(bin);
        }

        private double freshRate(int bin) {
            if (watch.auditRate() == 0) {
                return 0;
            }
            boolean any = false;
            for (int j = 0; j <= bin; j++) {
                if (open[j]) {
                    any = true;
                    if (lastN[j] - openedN[j] >= auditSpanVerdicts) {
                        return 0;
                    }
                }
            }
            return any ? watch.auditRate() : 0;
        }

        /** How often the drift test closed a class. */
        long closings() {
            return closings;
        }

        /** What the watch did so far, and the classes it keeps closed now. */
        Figures figures() {
            int closedNow = 0;
            for (int j = 0; j < COUNT; j++) {
                closedNow += closed[j] && !open[j] ? 1 : 0;
            }
            return new Figures(driftEvents, boundEvents, reopenEvents, closedNow);
        }

        boolean open(int j) {
            return open[j];
        }

        private static void classCounts(long[] right, long[] wrong, long[] n, long[] k) {
            long r = 0;
            long w = 0;
            for (int j = COUNT - 1; j >= 0; j--) {
                r += right[j];
                w += wrong[j];
                n[j] = r + w;
                k[j] = w;
            }
        }

        private static double logMeanExp(double[] e) {
            double max = Double.NEGATIVE_INFINITY;
            for (double v : e) {
                max = Math.max(max, v);
            }
            double sum = 0;
            for (double v : e) {
                sum += Math.exp(v - max);
            }
            return max + Math.log(sum / e.length);
        }
    }
}
