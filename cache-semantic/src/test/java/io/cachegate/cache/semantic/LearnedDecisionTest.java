package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LearnedDecisionTest {

    private static final float[] QUERY = {1f, 0f};

    private static Neighbour neighbour(String key, double similarity, String text) {
        return new Neighbour(key, (float) similarity, text, 0, 0);
    }

    @Test
    void decide_needsTheFloorAndTheProbability() {
        LearnedDecision decision = new LearnedDecision(0.8, LearnedParametersTest.cosineOnly(0.5));

        assertThat(decision.decide("q", QUERY, List.of(neighbour("a", 0.95, "x")))).isPresent();
        // Above the floor, below p 0.5 (cosine 0.9).
        assertThat(decision.decide("q", QUERY, List.of(neighbour("a", 0.85, "x")))).isEmpty();
        assertThat(new LearnedDecision(0.96, LearnedParametersTest.cosineOnly(0.5))
                .decide("q", QUERY, List.of(neighbour("a", 0.95, "x")))).isEmpty();
        assertThat(decision.decide("q", QUERY, List.of())).isEmpty();
    }

    @Test
    void requestThreshold_onlyTightens() {
        LearnedDecision decision = new LearnedDecision(0.8, LearnedParametersTest.cosineOnly(0.5));
        List<Neighbour> neighbours = List.of(neighbour("a", 0.93, "x"));

        assertThat(decision.decide("q", QUERY, neighbours, 0.95)).isEmpty();
        assertThat(decision.decide("q", QUERY, neighbours, 0.5)).isPresent();
        assertThat(decision.decide("q", QUERY, neighbours, Double.NaN)).isPresent();
        // A loose request cannot lift a neighbour under the configured floor.
        assertThat(new LearnedDecision(0.95, LearnedParametersTest.cosineOnly(0.0))
                .decide("q", QUERY, neighbours, 0.5)).isEmpty();
        assertThat(decision.threshold()).isEqualTo(0.8);
    }

    @Test
    void decide_reranksByProbability() {
        double[] weights = new double[PairFeatures.COUNT];
        weights[PairFeatures.NAMES.indexOf("cosine")] = 10;
        weights[PairFeatures.NAMES.indexOf("rare_unmatched")] = -20;
        LearnedDecision decision = new LearnedDecision(0.8, new LearnedParameters("m", 0.5, -5, weights));
        List<Neighbour> neighbours = List.of(
                neighbour("closer", 0.97, "Refund for monthly plans"),
                neighbour("same", 0.95, "Refunds for annual plans"));

        assertThat(decision.decide("Refund for annual plans", QUERY, neighbours))
                .hasValueSatisfying(match -> {
                    assertThat(match.neighbour().entryKey()).isEqualTo("same");
                    assertThat(match.similarity()).isEqualTo(0.95f);
                });
    }

    @Test
    void bundled_vetoesDifferentNumbersAndNegation_whateverTheProbability() {
        LearnedDecision decision = new LearnedDecision(0.8, LearnedParametersTest.cosineOnly(0.0),
                List.of(PairGuard.numbers(), PairGuard.negation()));

        assertThat(decision.decide("Book 2 seats for Friday", QUERY, List.of(neighbour("a", 0.99, "Book 3 seats for Friday"))))
                .isEmpty();
        assertThat(decision.decide("Can I cancel my order?", QUERY, List.of(neighbour("a", 0.99, "Can't I cancel my order?"))))
                .isEmpty();
        assertThat(decision.decide("Book 2 seats for Friday", QUERY, List.of(
                neighbour("three", 0.99, "Book 3 seats for Friday"), neighbour("two", 0.97, "Book two seats, 2, Friday"))))
                .hasValueSatisfying(m -> assertThat(m.neighbour().entryKey()).isEqualTo("two"));
        assertThat(LearnedDecision.bundled(0.8).toString()).contains("numbers").contains("negation");
    }

    @Test
    void decide_isDeterministicWhateverTheNeighbourOrder() {
        LearnedDecision decision = LearnedDecision.bundled(0.8);
        List<Neighbour> neighbours = new ArrayList<>(List.of(
                neighbour("a", 0.96, "How do I change my delivery address?"),
                neighbour("b", 0.96, "How can I change the delivery address?"),
                neighbour("c", 0.95, "Change my billing address"),
                neighbour("d", 0.90, "Where is my parcel?")));
        String first = decision.decide("how to update my delivery address", QUERY, neighbours)
                .map(m -> m.neighbour().entryKey()).orElse("none");
        Random random = new Random(7);
        for (int i = 0; i < 20; i++) {
            Collections.shuffle(neighbours, random);
            assertThat(decision.decide("how to update my delivery address", QUERY, neighbours)
                    .map(m -> m.neighbour().entryKey()).orElse("none")).isEqualTo(first);
        }
        assertThat(first).isNotEqualTo("none");
    }
}
