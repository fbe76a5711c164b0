package io.cachegate.cache.semantic;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A cosine floor, then a logistic regression over {@link PairFeatures}: every neighbour at or above the floor
 * is scored and the most probable one is the hit when its probability reaches the parameters' minimum. So a
 * slightly less similar entry that words the question the same way beats a closer one that differs in a
 * number or a key word. The floor is the configured threshold; a per-request threshold only raises it.
 * Deterministic (candidates are visited best cosine first, ties by entry key, and only a strictly higher
 * probability displaces one) and thread-safe (immutable; features are computed into a local array).
 */
public final class LearnedDecision implements MatchDecision {

    private final double threshold;
    private final LearnedParameters parameters;
    private final List<PairGuard> vetoes;

    /**
     * @param threshold the cosine floor for a hit, in (0, 1]
     * @param parameters the fitted classifier and its minimum probability
     */
    public LearnedDecision(double threshold, LearnedParameters parameters) {
        this(threshold, parameters, List.of());
    }

    /**
     * @param vetoes guards that reject a candidate whatever its probability: hard rules the training data cannot
     *               teach (its intent labels ignore numbers, so the fitted weight of "numbers differ" is positive)
     */
    public LearnedDecision(double threshold, LearnedParameters parameters, List<PairGuard> vetoes) {
        this.threshold = Thresholds.validate(threshold);
        this.parameters = Objects.requireNonNull(parameters, "parameters");
        this.vetoes = List.copyOf(vetoes);
    }

    /**
     * The floor with the parameters shipped in this module, and the number, identifier and negation guards as
     * vetoes: "2 seats" never answers "3 seats", nor order "ZX-4471B" order "ZX-4471", nor "can I" "can't I".
     */
    public static LearnedDecision bundled(double threshold) {
        return new LearnedDecision(threshold, BundledParameters.INSTANCE, List.of(PairGuard.numbers(),
                PairGuard.identifiers(), PairGuard.negation()));
    }

    /** The bundled decision with {@code extra} vetoes after the bundled ones. */
    public static LearnedDecision bundled(double threshold, List<PairGuard> extra) {
        List<PairGuard> vetoes = new java.util.ArrayList<>(bundled(threshold).vetoes);
        vetoes.addAll(extra);
        return new LearnedDecision(threshold, BundledParameters.INSTANCE, vetoes);
    }

    @Override
    public Optional<Match> decide(String queryText, float[] queryVector, List<Neighbour> neighbours,
                                  double requestThreshold) {
        Optional<Scored> best = scored(queryText, neighbours, requestThreshold).stream()
                .reduce((a, b) -> b.probability() > a.probability() ? b : a);
        return best.filter(b -> b.probability() >= parameters.minProbability())
                .map(b -> new Match(b.neighbour(), b.neighbour().similarity()));
    }

    /**
     * Every neighbour at or above the floor that no veto rejects, with the classifier's probability that it asks
     * the same thing as the query, best cosine first (ties by entry key): the candidates an error-budgeted
     * decision weighs against what it has learned of each.
     */
    public List<Scored> scored(String queryText, List<Neighbour> neighbours, double requestThreshold) {
        return scoredFrom(queryText, neighbours, Thresholds.effective(threshold, requestThreshold));
    }

    /** As {@link #scored}, with {@code floor} in place of the threshold (an error budget sets its own). */
    public List<Scored> scoredFrom(String queryText, List<Neighbour> neighbours, double floor) {
        Objects.requireNonNull(queryText, "queryText");
        double[] features = new double[PairFeatures.COUNT];
        List<Scored> scored = new ArrayList<>();
        for (Neighbour candidate : Thresholds.candidates(neighbours, floor)) {
            if (vetoed(queryText, candidate.text())) {
                continue;
            }
            PairFeatures.compute(queryText, candidate.text(), candidate.similarity(), features);
            scored.add(new Scored(candidate, parameters.probability(features)));
        }
        return scored;
    }

    /** A candidate and the classifier's probability that it answers the query. */
    public record Scored(Neighbour neighbour, double probability) {
    }

    private boolean vetoed(String queryText, String cachedText) {
        for (PairGuard veto : vetoes) {
            if (veto.rejects(queryText, cachedText)) {
                return true;
            }
        }
        return false;
    }

    /** The classifier's probability that the two texts ask the same thing: for reports and explaining a miss. */
    public double probability(String queryText, String cachedText, float cosine) {
        return parameters.probability(PairFeatures.of(queryText, cachedText, cosine));
    }

    @Override
    public double threshold() {
        return threshold;
    }

    public LearnedParameters parameters() {
        return parameters;
    }

    @Override
    public String toString() {
        return "learned(" + threshold + ", min_probability " + parameters.minProbability() + ", "
                + parameters.modelId() + ", vetoes " + vetoes + ")";
    }

    /** Loaded once, on first use. */
    private static final class BundledParameters {
        static final LearnedParameters INSTANCE = LearnedParameters.bundled();
    }
}
