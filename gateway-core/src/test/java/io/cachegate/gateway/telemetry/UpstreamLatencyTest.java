package io.cachegate.gateway.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The upstream time a hit avoided: the median of the route's recent upstream answers. */
class UpstreamLatencyTest {

    @Test
    void noAnswerYet_noEstimate() {
        assertThat(new UpstreamLatency().estimateNanos("0")).isZero();
    }

    @Test
    void median_ignoresOneStuckGeneration_andRoutesAreApart() {
        UpstreamLatency latency = new UpstreamLatency();
        for (int i = 0; i < 9; i++) {
            latency.answered("0", 100);
        }
        latency.answered("0", 60_000_000_000L);
        latency.answered("1", 7);
        assertThat(latency.estimateNanos("0")).isEqualTo(100);
        assertThat(latency.estimateNanos("1")).isEqualTo(7);
    }

    @Test
    void window_forgetsOldAnswers() {
        UpstreamLatency latency = new UpstreamLatency();
        for (int i = 0; i < UpstreamLatency.WINDOW; i++) {
            latency.answered("0", 1_000);
        }
        for (int i = 0; i < UpstreamLatency.WINDOW; i++) {
            latency.answered("0", 5);
        }
        assertThat(latency.estimateNanos("0")).isEqualTo(5);
    }
}
