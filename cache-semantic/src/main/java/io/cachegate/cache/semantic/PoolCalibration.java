package io.cachegate.cache.semantic;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One pool's evidence ({@link HitEvidence}: a route and a tenant): its right and wrong verdicts by bin of the
 * classifier's probability, the point estimate and always-valid bounds they give, and the classes each watch in force
 * follows ({@link ClassWatch}). Thread-safe: every call holds the pool's lock for microseconds.
 */
final class PoolCalibration {

    private final long[] right = new long[ProbabilityBins.COUNT];
    private final long[] wrong = new long[ProbabilityBins.COUNT];
    /** The watched classes, by settings: a handful at most (one per budget and watch in force). */
    private final Map<WatchKey, ClassWatch.State> watched = new LinkedHashMap<>();
    /** Closed classes read from a saved file, by {@link WatchKey#id}, until a decision asks for those settings. */
    private final Map<String, ClassWatch.Closed> restored = new LinkedHashMap<>();

    synchronized HitEvidence.SavedPool saved() {
        Map<String, ClassWatch.Closed> closed = new LinkedHashMap<>(restored);
        watched.forEach((key, state) -> closed.put(key.id(), state.closed()));
        return new HitEvidence.SavedPool(right.clone(), wrong.clone(), closed);
    }

    /** Into a pool with no verdicts yet. */
    synchronized void restore(HitEvidence.SavedPool saved) {
        System.arraycopy(saved.right(), 0, right, 0, right.length);
        System.arraycopy(saved.wrong(), 0, wrong, 0, wrong.length);
        restored.putAll(saved.closed());
        nested = null;
    }

    synchronized void add(double prior, boolean r) {
        nested = null;
        int bin = ProbabilityBins.of(prior);
        if (r) {
            right[bin]++;
        } else {
            wrong[bin]++;
        }
        for (ClassWatch.State state : watched.values()) {
            state.add(bin, r, right, wrong);
        }
    }

    /** Per bin b, as {@link #nestedUpper}, with the classes followed by {@code watch}. */
    synchronized double[] watchedUpper(ClassSpending spending, ClassWatch watch) {
        return state(spending, watch).nestedUpper();
    }

    synchronized double auditRate(ClassSpending spending, ClassWatch watch, int bin) {
        return state(spending, watch).auditRate(bin);
    }

    synchronized long closings(ClassSpending spending, ClassWatch watch) {
        return state(spending, watch).closings();
    }

    /** The watch's figures under {@code key}, or null when no decision asked for these classes. */
    synchronized ClassWatch.Figures figures(WatchKey key) {
        ClassWatch.State state = watched.get(key);
        return state == null ? null : state.figures();
    }

    private ClassWatch.State state(ClassSpending spending, ClassWatch watch) {
        return watched.computeIfAbsent(WatchKey.of(spending, watch), key -> {
            ClassWatch.State state = watch.start(spending);
            state.catchUp(right, wrong);
            ClassWatch.Closed closed = restored.remove(key.id());
            if (closed != null) {
                state.restore(closed, right, wrong);
            }
            return state;
        });
    }

    private double[] nested;
    private ClassSpending nestedSpending;

    /** Per bin b: the lowest bound of the classes "bins j..COUNT-1" for j <= b; cached until the next verdict. */
    synchronized double[] nestedUpper(ClassSpending spending) {
        if (nested != null && nestedSpending == spending) {
            return nested;
        }
        nested = spending.nestedUpper(right, wrong);
        nestedSpending = spending;
        return nested;
    }

    synchronized long[] counts(int bin) {
        return new long[] {right[bin], wrong[bin]};
    }

    synchronized double estimate(double prior, double strength) {
        int b = ProbabilityBins.of(prior);
        return (strength * prior + right[b]) / (strength + right[b] + wrong[b]);
    }

    /** What a watched state of a pool's classes is kept by: equal settings share one (a decision per threshold). */
    record WatchKey(double budget, double delta, ClassSpending.Plan plan, ClassWatch watch) {

        static WatchKey of(ClassSpending spending, ClassWatch watch) {
            return new WatchKey(spending.budget(), spending.delta(), spending.plan(), watch);
        }

        /** The settings as text, the same in every process: a saved state is found again by it. */
        String id() {
            return budget + "|" + delta + "|" + plan.name() + "|" + watch;
        }
    }
}
