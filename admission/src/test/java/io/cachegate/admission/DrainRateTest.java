package io.cachegate.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class DrainRateTest {

    private static final long S = 1_000_000_000L;

    @Test
    void rate_beforeAnyMeasurement_isThePrior() {
        DrainRate d = new DrainRate(1000, S, 0.3, 0);
        assertThat(d.rate()).isEqualTo(1000.0);
        assertThat(d.measured()).isFalse();
    }

    @Test
    void released_firstSample_replacesThePrior() {
        DrainRate d = new DrainRate(1000, S, 0.3, 0);
        d.busy(0, true);
        d.released(S / 2, 100);
        assertThat(d.measured()).isFalse(); // half a window so far
        d.released(2 * S, 300);
        assertThat(d.rate()).isEqualTo(200.0); // 400 tokens in 2 s
        assertThat(d.measured()).isTrue();
    }

    @Test
    void released_laterSamples_areAveragedWithAlpha() {
        DrainRate d = new DrainRate(1000, S, 0.25, 0);
        d.busy(0, true);
        d.released(S, 100);
        d.released(2 * S, 500);
        assertThat(d.rate()).isCloseTo(0.25 * 500 + 0.75 * 100, within(1e-9));
    }

    @Test
    void released_idleTime_isNotBusyTime() {
        DrainRate d = new DrainRate(1000, S, 1, 0);
        d.busy(0, true);
        d.busy(S / 2, false);      // saturated for 0.5 s
        d.released(5 * S, 1000);   // idle: not counted
        d.busy(10 * S, true);
        d.released(10 * S + S / 2, 100); // 1 s busy in all
        assertThat(d.rate()).isEqualTo(100.0);
    }

    @Test
    void rate_neverBelowTheFloor() {
        DrainRate d = new DrainRate(1000, S, 1, 0);
        d.busy(0, true);
        d.released(100 * S, 1);
        assertThat(d.rate()).isEqualTo(DrainRate.MIN_RATE);
    }
}
