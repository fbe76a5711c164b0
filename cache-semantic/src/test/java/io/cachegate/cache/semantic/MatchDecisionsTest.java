package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MatchDecisionsTest {

    @Test
    void create_eachName_hasThatTypeAndThreshold() {
        assertThat(MatchDecisions.create("learned", 0.9)).isInstanceOf(LearnedDecision.class);
        assertThat(MatchDecisions.create("guarded", 0.9)).isInstanceOf(GuardedDecision.class);
        assertThat(MatchDecisions.create("cosine", 0.9)).isInstanceOf(CosineThresholdDecision.class);
        for (String name : MatchDecisions.NAMES) {
            assertThat(MatchDecisions.create(name, 0.91).threshold()).isEqualTo(0.91);
        }
    }

    @Test
    void create_unknownNameOrThreshold_isRejected() {
        assertThatThrownBy(() -> MatchDecisions.create("fuzzy", 0.9)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fuzzy").hasMessageContaining("learned");
        assertThatThrownBy(() -> MatchDecisions.create("learned", 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void defaultDecision_isOneOfTheNames() {
        assertThat(MatchDecisions.NAMES).contains(MatchDecisions.DEFAULT);
    }
}
