package io.cachegate.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CallRaceTest {

    @Test
    void outcome_comparesByTheMedianRatioOfPairs_soOneStretchedCallDoesNotDecide() {
        // The first is faster in four pairs of five; its one stretched call (load on the machine) is ignored.
        CallRace.Outcome outcome = CallRace.outcome(new long[] {80, 82, 900, 80, 84}, new long[] {100, 100, 100, 100, 100});
        assertThat(outcome.firstFaster()).isTrue();
        assertThat(outcome.ratio()).isEqualTo(0.82);
        assertThat(outcome.firstNanos()).isEqualTo(82);
        assertThat(outcome.secondNanos()).isEqualTo(100);
    }

    @Test
    void outcome_equalTimes_isNotFaster() {
        assertThat(CallRace.outcome(new long[] {100, 100}, new long[] {100, 100}).firstFaster()).isFalse();
        assertThat(CallRace.outcome(new long[] {90, 120}, new long[] {100, 100}).ratio()).isEqualTo(1.05);
    }

    @Test
    void outcome_unpairedTimes_refused() {
        assertThatThrownBy(() -> CallRace.outcome(new long[] {1, 2}, new long[] {1}))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CallRace.outcome(new long[0], new long[0])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void race_runsEachOnceUntimedThenThePairs_andTheSlowerLoses() throws Exception {
        AtomicInteger fast = new AtomicInteger();
        AtomicInteger slow = new AtomicInteger();
        CallRace.Outcome outcome = CallRace.race(fast::incrementAndGet, () -> {
            slow.incrementAndGet();
            Thread.sleep(2);
        }, 5);
        assertThat(outcome.firstFaster()).isTrue();
        assertThat(fast).hasValue(6);
        assertThat(slow).hasValue(6);
        CallRace.Outcome reversed = CallRace.race(() -> Thread.sleep(2), () -> { }, 3);
        assertThat(reversed.firstFaster()).isFalse();
    }

    @Test
    void race_aCallThatThrows_throws() {
        assertThatThrownBy(() -> CallRace.race(() -> { }, () -> {
            throw new IllegalStateException("boom");
        }, 3)).hasMessage("boom");
        assertThatThrownBy(() -> CallRace.race(() -> { }, () -> { }, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
