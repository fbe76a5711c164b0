package io.cachegate.cache.semantic;

import java.util.List;
import java.util.Optional;

/**
 * The baseline every other gateway ships: the nearest neighbour is a hit when its cosine similarity reaches
 * the threshold. Kept for comparison in {@code eval-semantic} and as the policy's {@code decision: cosine}.
 */
public final class CosineThresholdDecision implements MatchDecision {

    private final double threshold;

    /** @param threshold the minimum cosine similarity for a hit, in (0, 1] */
    public CosineThresholdDecision(double threshold) {
        this.threshold = Thresholds.validate(threshold);
    }

    @Override
    public Optional<Match> decide(String queryText, float[] queryVector, List<Neighbour> neighbours,
                                  double requestThreshold) {
        List<Neighbour> above = Thresholds.candidates(neighbours, Thresholds.effective(threshold, requestThreshold));
        return above.isEmpty() ? Optional.empty() : Optional.of(new Match(above.get(0), above.get(0).similarity()));
    }

    @Override
    public double threshold() {
        return threshold;
    }

    @Override
    public String toString() {
        return "cosine(" + threshold + ")";
    }
}
