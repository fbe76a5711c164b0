package io.cachegate.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ArrivalRateTest {

    private static final long S = 1_000_000_000L;
    private static final long MS = 1_000_000L;

    @Test
    void rate_beforeAnyArrival_isZero() {
        ArrivalRate a = new ArrivalRate(2.0 * S, 0);
        assertThat(a.rate(0)).isZero();
        assertThat(a.rate(100 * S)).isZero();
    }

    @Test
    void arrived_steadyStream_convergesToItsRate() {
        ArrivalRate a = new ArrivalRate(2.0 * S, 0);
        long now = 0;
        for (int i = 0; i < 300; i++) { // 60 tokens every 100 ms for 30 s: 600 tokens/s
            now += 100 * MS;
            a.arrived(now, 60);
        }
        // Between arrivals the estimate saw-tooths around 600 by about 100 ms / 2 tau = 2.5%.
        assertThat(a.rate(now)).isCloseTo(600, within(20.0));
        assertThat(a.rate(now + 99 * MS)).isCloseTo(600, within(20.0));
    }

    @Test
    void rate_withoutArrivals_decaysByEPerTimeConstant() {
        ArrivalRate a = new ArrivalRate(2.0 * S, 0);
        a.arrived(0, 1000); // 1000 / 2 s
        assertThat(a.rate(0)).isEqualTo(500.0);
        assertThat(a.rate(2 * S)).isCloseTo(500 / Math.E, within(1e-9));
        assertThat(a.rate(4000 * S)).isZero();
    }

    @Test
    void rate_readingDoesNotChangeIt() {
        ArrivalRate a = new ArrivalRate(2.0 * S, 0);
        a.arrived(0, 1000);
        a.rate(S);
        a.rate(S);
        assertThat(a.rate(2 * S)).isCloseTo(500 / Math.E, within(1e-9));
    }

    @Test
    void arrived_burstAtOneInstant_addsUp() {
        ArrivalRate a = new ArrivalRate(2.0 * S, 5 * S);
        a.arrived(5 * S, 300);
        a.arrived(5 * S, 100);
        assertThat(a.rate(5 * S)).isEqualTo(200.0);
    }
}
