package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class MatchDecisionTest {

    private static final float[] QUERY = {1f, 0f};

    private static Neighbour neighbour(String key, double similarity, String text) {
        return new Neighbour(key, (float) similarity, text, 0, 0);
    }

    @Test
    void cosine_hitsTheNearestAtOrAboveThreshold() {
        MatchDecision decision = new CosineThresholdDecision(0.9);
        List<Neighbour> neighbours = List.of(neighbour("b", 0.91, "x"), neighbour("a", 0.95, "y"));
        assertThat(decision.decide("q", QUERY, neighbours)).hasValueSatisfying(match -> {
            assertThat(match.neighbour().entryKey()).isEqualTo("a");
            assertThat(match.similarity()).isEqualTo(0.95f);
        });
        assertThat(decision.decide("q", QUERY, List.of(neighbour("a", 0.9, "y")))).isPresent();
    }

    @Test
    void cosine_missesBelowThresholdOrWithoutNeighbours() {
        MatchDecision decision = new CosineThresholdDecision(0.9);
        assertThat(decision.decide("q", QUERY, List.of(neighbour("a", 0.899, "y")))).isEmpty();
        assertThat(decision.decide("q", QUERY, List.of())).isEmpty();
    }

    @Test
    void requestThreshold_onlyMakesTheDecisionStricter() {
        List<Neighbour> neighbours = List.of(neighbour("a", 0.93, "y"));
        for (MatchDecision decision : List.of(new CosineThresholdDecision(0.9), GuardedDecision.withAllGuards(0.9))) {
            assertThat(decision.decide("q", QUERY, neighbours, 0.95)).isEmpty();
            assertThat(decision.decide("q", QUERY, neighbours, 0.5)).isPresent();
            assertThat(decision.decide("q", QUERY, neighbours, Double.NaN)).isPresent();
        }
    }

    @Test
    void threshold_mustBeInRange() {
        assertThatThrownBy(() -> new CosineThresholdDecision(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("threshold");
        assertThatThrownBy(() -> GuardedDecision.withAllGuards(1.5)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new CosineThresholdDecision(1).threshold()).isEqualTo(1.0);
    }

    @Test
    void guarded_skipsANeighbourAGuardRejects() {
        GuardedDecision decision = GuardedDecision.withAllGuards(0.9);
        List<Neighbour> neighbours = List.of(
                neighbour("two", 0.97, "How do I book 2 seats?"),
                neighbour("three", 0.95, "how can I book 3 seats"));
        assertThat(decision.decide("How do I book 3 seats?", QUERY, neighbours))
                .hasValueSatisfying(match -> assertThat(match.neighbour().entryKey()).isEqualTo("three"));
    }

    @Test
    void guarded_missesWhenEveryCandidateIsRejected() {
        GuardedDecision decision = GuardedDecision.withAllGuards(0.9);
        List<Neighbour> neighbours = List.of(neighbour("a", 0.98, "Why is my card working?"));
        assertThat(decision.decide("Why is my card not working?", QUERY, neighbours)).isEmpty();
        assertThat(decision.rejection("Why is my card not working?", "Why is my card working?"))
                .hasValueSatisfying(guard -> assertThat(guard.name()).isEqualTo("negation"));
    }

    @Test
    void guarded_neverHitsBelowThresholdEvenWhenGuardsPass() {
        GuardedDecision decision = GuardedDecision.withAllGuards(0.9);
        assertThat(decision.decide("Reset my password", QUERY, List.of(neighbour("a", 0.85, "Reset my password"))))
                .isEmpty();
    }

    @Test
    void guarded_withoutGuardsIsTheCosineDecision() {
        GuardedDecision bare = new GuardedDecision(0.9, List.of());
        List<Neighbour> neighbours = List.of(neighbour("a", 0.92, "I have 2 cats"), neighbour("b", 0.8, "z"));
        assertThat(bare.decide("I have no cats", QUERY, neighbours))
                .isEqualTo(new CosineThresholdDecision(0.9).decide("I have no cats", QUERY, neighbours));
    }

    @Test
    void ties_areBrokenByEntryKeyWhateverTheInputOrder() {
        MatchDecision decision = new CosineThresholdDecision(0.9);
        Neighbour a = neighbour("a", 0.95, "x");
        Neighbour b = neighbour("b", 0.95, "x");
        assertThat(decision.decide("q", QUERY, List.of(b, a))).hasValueSatisfying(m -> assertThat(m.neighbour()).isEqualTo(a));
        assertThat(decision.decide("q", QUERY, List.of(a, b))).hasValueSatisfying(m -> assertThat(m.neighbour()).isEqualTo(a));
    }
}
