package io.cachegate.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class LatencyModelTest {

    private static final long MS = 1_000_000L;

    @Test
    void firstTokenDelay_nothingCached_isTtftPlusPrefillPerPromptToken() {
        LatencyModel model = new LatencyModel(100, 0.5, 10);

        assertThat(model.firstTokenDelayNanos(40)).isEqualTo(120 * MS);
        assertThat(model.firstTokenDelayNanos(40, 0)).isEqualTo(120 * MS);
    }

    @Test
    void firstTokenDelay_cachedTokens_skipTheirPrefill() {
        LatencyModel model = new LatencyModel(100, 0.5, 10);

        assertThat(model.firstTokenDelayNanos(40, 30)).isEqualTo(105 * MS);
        assertThat(model.firstTokenDelayNanos(40, 40)).isEqualTo(100 * MS);
        assertThat(model.firstTokenDelayNanos(40, 99)).isEqualTo(100 * MS); // never below the fixed part
    }

    @Test
    void cachedTokens_isTheHitCharactersShareOfThePrompt() {
        assertThat(LatencyModel.cachedTokens(100, 1000, 256)).isEqualTo(25);
        assertThat(LatencyModel.cachedTokens(100, 1000, 0)).isZero();
        assertThat(LatencyModel.cachedTokens(100, 0, 0)).isZero();
        assertThat(LatencyModel.cachedTokens(100, 1000, 5000)).isEqualTo(100);
    }

    @Test
    void tokenInterval_noThroughputLimit_isTpotWhateverTheLoad() {
        LatencyModel model = new LatencyModel(0, 0, 10);

        assertThat(model.sharesThroughput()).isFalse();
        assertThat(model.tokenIntervalNanos(1)).isEqualTo(10.0 * MS);
        assertThat(model.tokenIntervalNanos(1000)).isEqualTo(10.0 * MS);
        assertThat(model.tokenOffsetNanos(5)).isEqualTo(50 * MS);
    }

    @Test
    void tokenInterval_throughputLimit_isMaxOfTpotAndRunningOverTokensPerSecond() {
        LatencyModel model = new LatencyModel(0, 0, 10, 1000); // 1000 tokens/s shared

        assertThat(model.sharesThroughput()).isTrue();
        assertThat(model.tokenIntervalNanos(1)).isEqualTo(10.0 * MS); // 1 ms < tpot
        assertThat(model.tokenIntervalNanos(10)).isEqualTo(10.0 * MS); // exactly the limit
        assertThat(model.tokenIntervalNanos(50)).isCloseTo(50.0 * MS, within(1.0)); // 50 sequences share 1000/s
        assertThat(model.tokenIntervalNanos(0)).isEqualTo(10.0 * MS);
    }

    @Test
    void tokenInterval_zeroTpotWithLimit_isPurelyShared() {
        LatencyModel model = new LatencyModel(0, 0, 0, 200);

        assertThat(model.tokenIntervalNanos(4)).isCloseTo(20.0 * MS, within(1.0));
    }
}
