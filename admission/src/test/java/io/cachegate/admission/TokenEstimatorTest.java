package io.cachegate.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class TokenEstimatorTest {

    private final TokenEstimator estimator = TokenEstimator.heuristic();

    @Test
    void estimate_empty_isZero() {
        assertThat(estimator.estimate("")).isZero();
    }

    @Test
    void estimate_englishProse_takesTheLargerOfCharsAndWords() {
        // 43 characters -> 11; 9 words -> 12.
        assertThat(estimator.estimate("The quick brown fox jumps over the lazy dog")).isEqualTo(12);
    }

    @Test
    void estimate_textWithoutSpaces_countsCharacters() {
        assertThat(estimator.estimate("a".repeat(400))).isEqualTo(100);
        assertThat(estimator.estimate("x=1;")).isEqualTo(2); // 1 by chars, 2 by the one word
    }

    @Test
    void estimate_manyShortWords_countsWords() {
        // 30 words, 59 characters: 15 by chars, 40 by words.
        assertThat(estimator.estimate("a b c d e f g h i j k l m n o p q r s t u v w x y z a b c d")).isEqualTo(40);
    }

    @Test
    void estimate_cjk_countsEachCharacter() {
        assertThat(estimator.estimate("你好世界")).isEqualTo(4);
        assertThat(estimator.estimate("こんにちは hello")).isEqualTo(5 + 2);
    }

    @Test
    void estimate_surrogatePair_countsOnce() {
        assertThat(estimator.estimate("\uD83D\uDE00\uD83D\uDE00\uD83D\uDE00\uD83D\uDE00")).isEqualTo(2);
    }

    @Test
    void cost_addsMaxTokensOrTheRouteDefault() {
        assertThat(estimator.cost("a".repeat(40), OptionalLong.of(100), 512)).isEqualTo(110);
        assertThat(estimator.cost("a".repeat(40), OptionalLong.empty(), 512)).isEqualTo(522);
        assertThat(estimator.cost("a".repeat(40), OptionalLong.of(0), 512)).isEqualTo(522);
    }
}
