package io.cachegate.cache.semantic;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The error-budgeted decision: a candidate is served only when the estimate that it is right is at least {@code
 * 1 - maxErrorRate}. The learned classifier's probability is the prior; {@link HitEvidence} turns the verdicts of
 * audits and explorations into the estimate, per route and per entry. Candidates that were not served are handed
 * back for exploration: the query goes upstream anyway, and comparing its fresh answer with theirs teaches the
 * evidence at no upstream cost.
 */
public final class BudgetedDecision {

    private final LearnedDecision prior;
    private final HitEvidence evidence;
    private final double maxErrorRate;

    /**
     * @param prior the learned decision: its floor and vetoes choose the candidates, its probability is the prior
     * @param maxErrorRate the error budget, in (0, 0.5)
     */
    public BudgetedDecision(LearnedDecision prior, HitEvidence evidence, double maxErrorRate) {
        if (!(maxErrorRate > 0 && maxErrorRate < 0.5)) {
            throw new IllegalArgumentException("maxErrorRate must be in (0, 0.5), was " + maxErrorRate);
        }
        this.prior = Objects.requireNonNull(prior, "prior");
        this.evidence = Objects.requireNonNull(evidence, "evidence");
        this.maxErrorRate = maxErrorRate;
    }

    /**
     * Judges the neighbours of a query: the candidate with the highest estimate is served when that estimate is
     * within the budget; the others (all of them on a miss) are returned to be explored.
     *
     * @param pool where verdicts are pooled (the route)
     */
    public Judgement judge(String pool, String queryText, List<Neighbour> neighbours, double requestThreshold) {
        List<Candidate> candidates = new ArrayList<>();
        Candidate best = null;
        for (LearnedDecision.Scored s : prior.scored(queryText, neighbours, requestThreshold)) {
            Neighbour n = s.neighbour();
            Candidate c = new Candidate(n, s.probability(),
                    evidence.estimate(pool, n.entryKey(), n.similarity(), s.probability()));
            candidates.add(c);
            if (best == null || c.estimate() > best.estimate()) {
                best = c;
            }
        }
        if (best != null && best.estimate() >= 1 - maxErrorRate) {
            candidates.remove(best);
            return new Judgement(Optional.of(best), candidates);
        }
        return new Judgement(Optional.empty(), candidates);
    }

    public double maxErrorRate() {
        return maxErrorRate;
    }

    public HitEvidence evidence() {
        return evidence;
    }

    /** A candidate: the neighbour, the classifier's probability for the pair, and the estimate it is right. */
    public record Candidate(Neighbour neighbour, double prior, double estimate) {

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
