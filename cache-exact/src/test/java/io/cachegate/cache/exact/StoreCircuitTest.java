package io.cachegate.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.StoreHealthSettings;
import io.cachegate.testkit.FakeTicker;
import io.lettuce.core.RedisCommandTimeoutException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The window decision on a fake ticker: what degrades the store, what does not, and how probes re-admit it. */
class StoreCircuitTest {

    // window 50, min_calls 20, failures 50%, slow 80% above half the timeout, 3 probes. open_for is long so that
    // resilience4j's own timer never moves the state during a test: the fake ticker does, through admit().
    private static final StoreHealthSettings SETTINGS = new StoreHealthSettings(50, 20, 0.5, 0.8, 0.5,
            Duration.ofMinutes(10), 3, Duration.ofSeconds(1), 4);
    private static final Duration TIMEOUT = Duration.ofMillis(50);

    private final FakeTicker ticker = new FakeTicker();
    private final StoreHealth health = new StoreHealth();
    private final StoreCircuit circuit = new StoreCircuit(SETTINGS,
            new AdaptiveTimeout(TIMEOUT, SETTINGS.timeoutMax(), SETTINGS.timeoutMultiple(), ticker,
                    health::commandTimeoutNanos), ticker, health, "redis://test");

    @Test
    void ended_oneTimeoutAmongAnswers_staysHealthy() {
        answered(30, Duration.ofMillis(2));
        timedOut(1);
        answered(30, Duration.ofMillis(2));

        assertThat(health.state()).isEqualTo(StoreState.HEALTHY);
        assertThat(circuit.admit()).isNotEqualTo(StoreCircuit.REFUSED);
        assertThat(health.stateChanges(StoreState.DEGRADED)).isZero();
    }

    @Test
    void ended_aBurstOfTimeoutsAmongAnswers_belowTheRate_staysHealthy() {
        answered(40, Duration.ofMillis(2));
        timedOut(10); // 10 of the last 50: 20%, below 50%
        assertThat(health.state()).isEqualTo(StoreState.HEALTHY);
    }

    @Test
    void ended_failuresBeforeMinCalls_decideNothing() {
        failed(19); // 19 of 19 failed, but the window needs 20 before it decides
        assertThat(health.state()).isEqualTo(StoreState.HEALTHY);
    }

    @Test
    void ended_failuresOverMinCalls_degrade_andAdmitRefuses() {
        failed(20);

        assertThat(health.state()).isEqualTo(StoreState.DEGRADED);
        assertThat(health.stateChanges(StoreState.DEGRADED)).isEqualTo(1);
        assertThat(circuit.admit()).as("degraded: fail fast").isEqualTo(StoreCircuit.REFUSED);
        assertThat(circuit.refusal()).isEqualTo("degraded");
    }

    @Test
    void ended_mostAnswersSlow_degrade() {
        // Slow: above half of the 50 ms timeout. 16 slow of 20 is 80%, the threshold.
        answered(4, Duration.ofMillis(2));
        answered(16, Duration.ofMillis(30));
        assertThat(health.state()).isEqualTo(StoreState.DEGRADED);
    }

    @Test
    void ended_answersJustUnderTheSlowLimit_stayHealthy() {
        answered(50, Duration.ofMillis(24));
        assertThat(health.state()).isEqualTo(StoreState.HEALTHY);
    }

    @Test
    void admit_afterOpenFor_probes_andPassingProbesReadmit() {
        failed(20);
        ticker.advance(SETTINGS.openFor().plusMillis(1));

        long[] probes = {circuit.admit(), circuit.admit(), circuit.admit()};
        assertThat(health.state()).isEqualTo(StoreState.PROBING);
        assertThat(probes).doesNotContain(StoreCircuit.REFUSED);
        assertThat(circuit.admit()).as("a fourth while three probe").isEqualTo(StoreCircuit.REFUSED);
        assertThat(health.available()).as("probing is not degraded").isFalse(); // never connected in this test

        for (long started : probes) {
            circuit.ended(started, null);
        }
        assertThat(health.state()).isEqualTo(StoreState.HEALTHY);
        assertThat(health.stateChanges(StoreState.PROBING)).isEqualTo(1);
        assertThat(health.stateChanges(StoreState.HEALTHY)).isEqualTo(1);
        assertThat(circuit.admit()).isNotEqualTo(StoreCircuit.REFUSED);
    }

    @Test
    void admit_probesFail_degradedAgain() {
        failed(20);
        ticker.advance(SETTINGS.openFor().plusMillis(1));
        failed(3);

        assertThat(health.state()).isEqualTo(StoreState.DEGRADED);
        assertThat(health.stateChanges(StoreState.DEGRADED)).isEqualTo(2);
        assertThat(circuit.admit()).isEqualTo(StoreCircuit.REFUSED);
    }

    @Test
    void abandoned_releasesItsPermission() {
        failed(20);
        ticker.advance(SETTINGS.openFor().plusMillis(1));
        for (int i = 0; i < 10; i++) {
            assertThat(circuit.admit()).isNotEqualTo(StoreCircuit.REFUSED);
            circuit.abandoned();
        }
        assertThat(health.state()).isEqualTo(StoreState.PROBING);
    }

    @Test
    void available_followsConnectionAndState() {
        health.connected(true);
        assertThat(health.available()).isTrue();
        failed(20);
        assertThat(health.available()).as("connected but degraded").isFalse();
        assertThat(health.connected()).isTrue();
    }

    private void answered(int n, Duration each) {
        for (int i = 0; i < n; i++) {
            long started = circuit.admit();
            ticker.advance(each);
            circuit.ended(started, null);
        }
    }

    private void timedOut(int n) {
        for (int i = 0; i < n; i++) {
            long started = circuit.admit();
            ticker.advance(TIMEOUT);
            circuit.ended(started, new RedisCommandTimeoutException("Command timed out after 50 millisecond(s)"));
        }
    }

    private void failed(int n) {
        for (int i = 0; i < n; i++) {
            long started = circuit.admit();
            circuit.ended(started, new StoreUnavailableException("Connection closed"));
        }
    }
}
