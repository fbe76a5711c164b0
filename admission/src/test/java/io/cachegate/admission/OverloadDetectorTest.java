package io.cachegate.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.OverloadPolicy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class OverloadDetectorTest {

    private static final long MS = 1_000_000L;

    private static OverloadDetector detector(Duration enterAfter, Duration exitAfter) {
        return new OverloadDetector(new OverloadPolicy(Duration.ofSeconds(1), Duration.ofMillis(200), 10_000, 1000,
                enterAfter, exitAfter));
    }

    /** Feeds {@code ticks} observations 100 ms apart, alternating two queue ages; returns the transitions. */
    private static int oscillate(OverloadDetector d, long start, int ticks, long ageA, long ageB) {
        int changes = 0;
        for (int i = 0; i < ticks; i++) {
            if (d.evaluate(start + i * 100 * MS, (i % 2 == 0 ? ageA : ageB) * MS, 0)) {
                changes++;
            }
        }
        return changes;
    }

    @Test
    void evaluate_ageOscillatingAroundEnterThreshold_neverEntersWithDwell() {
        OverloadDetector d = detector(Duration.ofMillis(500), Duration.ofSeconds(2));
        assertThat(oscillate(d, 0, 200, 900, 1100)).isZero();
        assertThat(d.overloaded()).isFalse();
    }

    @Test
    void evaluate_ageOscillatingAroundEnterThreshold_entersOnceAndStaysWithoutDwell() {
        OverloadDetector d = detector(Duration.ZERO, Duration.ZERO);
        assertThat(oscillate(d, 0, 200, 900, 1100)).isEqualTo(1);
        assertThat(d.overloaded()).isTrue(); // 900 ms is far above the 200 ms exit threshold
    }

    @Test
    void evaluate_ageOscillatingAroundExitThreshold_neverLeavesWithDwell() {
        OverloadDetector d = detector(Duration.ZERO, Duration.ofSeconds(1));
        assertThat(d.evaluate(0, 2000 * MS, 0)).isTrue();
        assertThat(oscillate(d, 100 * MS, 200, 100, 300)).isZero();
        assertThat(d.overloaded()).isTrue();
    }

    @Test
    void evaluate_ageOscillatingAroundExitThreshold_leavesOnceWithoutDwell() {
        OverloadDetector d = detector(Duration.ZERO, Duration.ZERO);
        assertThat(d.evaluate(0, 2000 * MS, 0)).isTrue();
        assertThat(oscillate(d, 100 * MS, 200, 100, 300)).isEqualTo(1);
        assertThat(d.overloaded()).isFalse(); // 300 ms is below the 1 s enter threshold
    }

    @Test
    void evaluate_oneTickBelow_restartsTheEnterCount() {
        OverloadDetector d = detector(Duration.ofMillis(500), Duration.ofSeconds(2));
        for (long t = 0; t <= 400; t += 100) {
            assertThat(d.evaluate(t * MS, 1500 * MS, 0)).isFalse();
        }
        assertThat(d.evaluate(500 * MS, 500 * MS, 0)).isFalse();
        for (long t = 600; t < 1100; t += 100) {
            assertThat(d.evaluate(t * MS, 1500 * MS, 0)).isFalse();
        }
        assertThat(d.evaluate(1100 * MS, 1500 * MS, 0)).isTrue();
        assertThat(d.overloaded()).isTrue();
    }

    @Test
    void evaluate_pendingTokensAlone_entersAndExitsWithHysteresis() {
        OverloadDetector d = detector(Duration.ZERO, Duration.ZERO);
        assertThat(d.evaluate(0, 0, 9_999)).isFalse();
        assertThat(d.evaluate(MS, 0, 10_000)).isTrue();
        assertThat(d.evaluate(2 * MS, 0, 5_000)).isFalse();
        assertThat(d.evaluate(3 * MS, 0, 1001)).isFalse();
        assertThat(d.evaluate(4 * MS, 0, 1000)).isTrue();
        assertThat(d.overloaded()).isFalse();
    }

    @Test
    void evaluate_exitNeedsBothSignalsLow() {
        OverloadDetector d = detector(Duration.ZERO, Duration.ZERO);
        assertThat(d.evaluate(0, 5000 * MS, 0)).isTrue();
        assertThat(d.evaluate(MS, 0, 5000)).isFalse();
        assertThat(d.evaluate(2 * MS, 0, 0)).isTrue();
    }

    @Test
    void evaluate_negativeTickerValues_work() {
        OverloadDetector d = detector(Duration.ofMillis(500), Duration.ofMillis(500));
        long start = -10_000 * MS;
        assertThat(d.evaluate(start, 2000 * MS, 0)).isFalse();
        assertThat(d.evaluate(start + 500 * MS, 2000 * MS, 0)).isTrue();
    }
}
