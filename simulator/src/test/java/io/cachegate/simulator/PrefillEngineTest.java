package io.cachegate.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Prefills one at a time, first come first served, or each at its own pace. */
class PrefillEngineTest {

    @Test
    void shared_prefillsArrivingTogether_endOneAfterTheOther() {
        PrefillEngine engine = new PrefillEngine(true);

        assertThat(engine.prefilledAt(1_000, 500)).isEqualTo(1_500);
        assertThat(engine.prefilledAt(1_100, 500)).as("queued behind the first").isEqualTo(2_000);
        assertThat(engine.prefilledAt(1_200, 0)).as("a prompt wholly cached takes no compute").isEqualTo(1_200);
        assertThat(engine.prefilledAt(1_300, 100)).isEqualTo(2_100);
    }

    @Test
    void shared_anIdleEngine_startsAPrefillWhenItMay() {
        PrefillEngine engine = new PrefillEngine(true);
        engine.prefilledAt(1_000, 500);

        assertThat(engine.prefilledAt(5_000, 500)).isEqualTo(5_500);
        assertThat(engine.prefilledAt(-9_000, 10)).as("nanoTime may be negative").isEqualTo(5_510);
    }

    @Test
    void notShared_everyPrefillRunsAtItsOwnPace() {
        PrefillEngine engine = new PrefillEngine(false);

        assertThat(engine.prefilledAt(1_000, 500)).isEqualTo(1_500);
        assertThat(engine.prefilledAt(1_100, 500)).isEqualTo(1_600);
    }
}
