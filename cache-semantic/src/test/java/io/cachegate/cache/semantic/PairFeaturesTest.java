package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class PairFeaturesTest {

    private static double feature(double[] features, String name) {
        return features[PairFeatures.NAMES.indexOf(name)];
    }

    @Test
    void compute_rewordedQuestion_sharesItsContentWords() {
        double[] f = PairFeatures.of("How do I reset my password?", "How can I reset my password?", 0.99f);

        assertThat(feature(f, "cosine")).isCloseTo(0.99, within(1e-6));
        assertThat(feature(f, "cosine_squared")).isCloseTo(0.9801, within(1e-5));
        assertThat(feature(f, "word_jaccard")).isEqualTo(1.0);
        assertThat(feature(f, "query_unmatched")).isZero();
        assertThat(feature(f, "rare_unmatched")).isZero();
        assertThat(feature(f, "numbers_differ")).isZero();
        assertThat(feature(f, "question_word_differs")).isZero();
        assertThat(feature(f, "length_ratio")).isEqualTo(1.0);
    }

    @Test
    void compute_differentKeyWord_isUnmatchedOnBothSides() {
        double[] f = PairFeatures.of("Refund for annual plans", "Refund for monthly plans", 0.91f);

        // Content words {refund, annual, plan} and {refund, monthly, plan}: two of four in common.
        assertThat(feature(f, "word_jaccard")).isCloseTo(0.5, within(1e-9));
        assertThat(feature(f, "query_unmatched")).isCloseTo(1 / 3.0, within(1e-9));
        assertThat(feature(f, "cached_unmatched")).isCloseTo(1 / 3.0, within(1e-9));
        assertThat(feature(f, "rare_unmatched")).isCloseTo(2 / 3.0, within(1e-9));
        assertThat(feature(f, "trigram_jaccard")).isBetween(0.3, 0.9);
    }

    @Test
    void compute_guardsAndQuestionWordsAreZeroOrOne() {
        double[] f = PairFeatures.of("Why can't I book 2 seats in Paris?", "When can I book 3 seats in Rome?", 0.9f);

        assertThat(feature(f, "numbers_differ")).isEqualTo(1.0);
        assertThat(feature(f, "negation_differs")).isEqualTo(1.0);
        assertThat(feature(f, "entities_differ")).isEqualTo(1.0);
        assertThat(feature(f, "question_word_differs")).isEqualTo(1.0);
    }

    @Test
    void compute_emptyTexts_stayBounded() {
        double[] f = PairFeatures.of("", "?!", 0.5f);

        for (double value : f) {
            assertThat(value).isBetween(0.0, 1.0);
        }
    }

    @Test
    void compute_isSymmetricInTheSharedFeatures() {
        double[] ab = PairFeatures.of("cheap flights to Oslo", "Cheapest flight to Oslo in May", 0.9f);
        double[] ba = PairFeatures.of("Cheapest flight to Oslo in May", "cheap flights to Oslo", 0.9f);

        assertThat(feature(ab, "word_jaccard")).isEqualTo(feature(ba, "word_jaccard"));
        assertThat(feature(ab, "trigram_jaccard")).isEqualTo(feature(ba, "trigram_jaccard"));
        assertThat(feature(ab, "query_unmatched")).isEqualTo(feature(ba, "cached_unmatched"));
    }

    @Test
    void compute_wrongOutputLength_isRejected() {
        assertThatThrownBy(() -> PairFeatures.compute("a", "b", 1f, new double[3]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(String.valueOf(PairFeatures.COUNT));
    }
}
