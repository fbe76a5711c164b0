package io.cachegate.cache.semantic;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The error-budgeted decision: a candidate is served only when the always-valid upper bound on the error rate of its
 * class (its scope's candidates in the same bin of the prior, {@link ErrorBound}) is at most {@code maxErrorRate}
 * and its own entry's verdicts do not speak against it; with {@code delta} 0, the older rule: when the point
 * estimate that it is right is at least {@code 1 - maxErrorRate}. The prior is the neighbourhood's agreement on the candidate's answer ({@link
 * NeighbourhoodAgreement}) when other neighbours share it, else the learned pair classifier's probability;
 * {@link HitEvidence} turns the verdicts of audits and explorations into the estimate, per route and per entry.
 * Candidates that were not served are handed back for exploration: the query goes upstream anyway, and comparing
 * its fresh answer with theirs teaches the evidence at no upstream cost.
 *
 * <p>Candidates: every neighbour the learned decision's vetoes let through at or above its threshold; below it,
 * down to {@link NeighbourhoodAgreement#FLOOR}, only those whose answer other neighbours share. A request's
 * stricter threshold raises both floors.
 *
 * <p>With the bound, a scope without verdicts serves nothing by meaning: every candidate is explored, and a class
 * opens once its verdicts bring its bound under the budget; a wrong verdict can close it again. With {@code nested}
 * the classes are "bin j of the prior or above", sharing delta as {@link ClassSpending.Plan#DEFAULT} says (delta / 20
 * each, {@link ClassSpending.Plan#BONFERRONI}): at 1% and {@code delta} 0.05 a class opens after 818 right verdicts.
 * Under {@link ClassSpending.Plan#CHAINED} (classes 4-12 at delta / 9 each, an open class handing its share to the next
 * one down, the mixture's prior mean at a third of the budget) it opens after 630, down to 474 once the four classes
 * above it are open; a bin alone at delta needs 473. An open nested class is followed by {@link ClassWatch#DEFAULT}: a
 * drift test on its verdicts since it opened, and a class that closes after opening re-earns its opening on the
 * verdicts after the closing.
 */
public final class BudgetedDecision {

    private final LearnedDecision prior;
    private final NeighbourhoodAgreement agreement;
    private final HitEvidence evidence;
    private final double maxErrorRate;
    private final ErrorBound bound;
    private final ClassSpending spending;
    private final ClassWatch watch;

    /** The point-estimate rule (no bound). */
    public BudgetedDecision(LearnedDecision prior, NeighbourhoodAgreement agreement, HitEvidence evidence,
                            double maxErrorRate) {
        this(prior, agreement, evidence, maxErrorRate, 0, false);
    }

    /**
     * @param prior the learned decision: its threshold and vetoes choose the candidates, its probability is the
     *              prior of a candidate whose answer no other neighbour shares
     * @param maxErrorRate the error budget, in (0, 0.5)
     * @param delta the probability that a bin's bound ever fails ({@link ErrorBound}), or 0 for the point estimate
     * @param nested whether a candidate's class is "its bin or any above, down to the lowest within budget" (the
     *               {@link ProbabilityBins#COUNT} nested classes share delta by {@link ClassSpending.Plan#DEFAULT})
     *               rather than its bin alone
     */
    public BudgetedDecision(LearnedDecision prior, NeighbourhoodAgreement agreement, HitEvidence evidence,
                            double maxErrorRate, double delta, boolean nested) {
        this(prior, agreement, evidence, maxErrorRate, delta, nested ? ClassSpending.Plan.DEFAULT : null);
    }

    /**
     * @param plan how the nested classes share delta ({@link ClassSpending}), or null for each bin alone at delta
     */
    public BudgetedDecision(LearnedDecision prior, NeighbourhoodAgreement agreement, HitEvidence evidence,
                            double maxErrorRate, double delta, ClassSpending.Plan plan) {
        this(prior, agreement, evidence, maxErrorRate, delta, plan, ClassWatch.DEFAULT);
    }

    /**
     * @param watch what an open nested class must keep showing to stay open ({@link ClassWatch}); only with a plan
     */
    public BudgetedDecision(LearnedDecision prior, NeighbourhoodAgreement agreement, HitEvidence evidence,
                            double maxErrorRate, double delta, ClassSpending.Plan plan, ClassWatch watch) {
        if (!(maxErrorRate > 0 && maxErrorRate < 0.5)) {
            throw new IllegalArgumentException("maxErrorRate must be in (0, 0.5), was " + maxErrorRate);
        }
        this.prior = Objects.requireNonNull(prior, "prior");
        this.agreement = Objects.requireNonNull(agreement, "agreement");
        this.evidence = Objects.requireNonNull(evidence, "evidence");
        this.maxErrorRate = maxErrorRate;
        this.bound = delta == 0 || plan != null ? null : new ErrorBound(maxErrorRate, delta);
        this.spending = delta == 0 || plan == null ? null : new ClassSpending(maxErrorRate, delta, plan);
        this.watch = Objects.requireNonNull(watch, "watch");
    }

    /**
     * Judges the neighbours of a query: the candidate with the highest estimate is served when that estimate is
     * within the budget; the others (all of them on a miss) are returned to be explored.
     *
     * @param pool where verdicts are pooled (the route)
     * @param neighbours the query's neighbours, best first
     */
    public Judgement judge(String pool, String queryText, List<Neighbour> neighbours, double requestThreshold) {
        float threshold = (float) Thresholds.effective(prior.threshold(), requestThreshold);
        float floor = (float) Math.max(NeighbourhoodAgreement.FLOOR, requestThreshold);
        List<Candidate> candidates = new ArrayList<>();
        Candidate best = null;
        for (LearnedDecision.Scored s : prior.scoredFrom(queryText, neighbours, Math.min(floor, threshold))) {
            Neighbour n = s.neighbour();
            double p = agreement.probability(n, neighbours);
            if (Double.isNaN(p)) {
                if (n.similarity() < threshold) {
                    continue; // below the threshold only a shared answer makes a candidate
                }
                p = s.probability();
            } else if (n.similarity() < floor) {
                continue;
            }
            Candidate c = candidate(pool, n, p);
            candidates.add(c);
            if (c.servable(maxErrorRate) && (best == null || c.estimate() > best.estimate())) {
                best = c;
            }
        }
        if (best != null) {
            candidates.remove(best);
            return new Judgement(Optional.of(best), candidates);
        }
        return new Judgement(Optional.empty(), candidates);
    }

    private Candidate candidate(String pool, Neighbour n, double p) {
        if (bound == null && spending == null) {
            return new Candidate(n, p, evidence.estimate(pool, n.entryKey(), n.similarity(), p), Double.NaN);
        }
        double upper = spending != null ? evidence.upperErrorNested(pool, p, spending, watch)
                : evidence.upperError(pool, p, bound);
        return new Candidate(n, p, evidence.entryEstimate(n.entryKey(), n.similarity(), 1 - upper), upper);
    }

    public double maxErrorRate() {
        return maxErrorRate;
    }

    public HitEvidence evidence() {
        return evidence;
    }

    /** The bound of each bin alone, or null under the nested classes or the point-estimate rule. */
    public ErrorBound bound() {
        return bound;
    }

    /** What an open nested class must keep showing to stay open. */
    public ClassWatch watch() {
        return watch;
    }

    /** How the nested classes share delta, or null under bins alone or the point-estimate rule. */
    public ClassSpending spending() {
        return spending;
    }

    /**
     * A candidate: the neighbour, its prior (agreement or the pair classifier's), the estimate it is right and the
     * upper bound on its class's error rate (NaN under the point-estimate rule).
     */
    public record Candidate(Neighbour neighbour, double prior, double estimate, double upperError) {

        /**
         * The share of such hits to audit asked by the decision's watch while the classes serving it are fresh
         * ({@link ClassWatch#auditRate}); 0 when the route's audit rate applies alone.
         */
        public double freshAuditRate(BudgetedDecision decision, String pool) {
            return decision.spending == null ? 0
                    : decision.evidence.freshAuditRate(pool, prior, decision.spending, decision.watch);
        }

        /** Within the budget: the class's bound (when there is one) and the entry's own estimate. */
        boolean servable(double maxErrorRate) {
            return estimate >= 1 - maxErrorRate && !(upperError > maxErrorRate);
        }

        public MatchDecision.Match match() {
            return new MatchDecision.Match(neighbour, neighbour.similarity());
        }
    }

    /** The candidate served, if any, and the candidates to explore (the query's fresh answer compared with theirs). */
    public record Judgement(Optional<Candidate> served, List<Candidate> explore) {

        public Judgement {
            explore = List.copyOf(explore);
        }
    }
}
