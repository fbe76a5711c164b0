package io.cachegate.cache.semantic;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A cosine threshold, then guards over the (query, cached text) pair. Neighbours at or
 * above the threshold are tried best first, and the first one no guard rejects is the hit; so when the
 * nearest entry asks about "2 seats" and the next about "3 seats", a query about 3 seats gets the second.
 * Deterministic: ties in similarity are broken by entry key.
 */
public final class GuardedDecision implements MatchDecision {

    private final double threshold;
    private final List<PairGuard> guards;

    /**
     * @param threshold the minimum cosine similarity for a hit, in (0, 1]
     * @param guards the guards every hit must pass, run in this order
     */
    public GuardedDecision(double threshold, List<PairGuard> guards) {
        this.threshold = Thresholds.validate(threshold);
        this.guards = List.copyOf(Objects.requireNonNull(guards, "guards"));
    }

    /** The threshold with all guards ({@link PairGuard#all()}). */
    public static GuardedDecision withAllGuards(double threshold) {
        return new GuardedDecision(threshold, PairGuard.all());
    }

    @Override
    public Optional<Match> decide(String queryText, float[] queryVector, List<Neighbour> neighbours,
                                  double requestThreshold) {
        Objects.requireNonNull(queryText, "queryText");
        for (Neighbour candidate : Thresholds.candidates(neighbours, Thresholds.effective(threshold, requestThreshold))) {
            if (rejection(queryText, candidate.text()).isEmpty()) {
                return Optional.of(new Match(candidate, candidate.similarity()));
            }
        }
        return Optional.empty();
    }

    /** The first guard that rejects the pair, if any: for tests, metrics and explaining a miss. */
    public Optional<PairGuard> rejection(String queryText, String cachedText) {
        for (PairGuard guard : guards) {
            if (guard.rejects(queryText, cachedText)) {
                return Optional.of(guard);
            }
        }
        return Optional.empty();
    }

    @Override
    public double threshold() {
        return threshold;
    }

    public List<PairGuard> guards() {
        return guards;
    }

    @Override
    public String toString() {
        return "guarded(" + threshold + ", " + guards + ")";
    }
}
