package io.cachegate.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.cachegate.testkit.FakeTicker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The command timeout follows 4 x the recent p99 of latency, between 50 ms and 1 s, on a fake ticker. */
class AdaptiveTimeoutTest {

    private final FakeTicker ticker = new FakeTicker();
    private final AtomicLong reported = new AtomicLong();
    private final AdaptiveTimeout timeout = new AdaptiveTimeout(Duration.ofMillis(50), Duration.ofSeconds(1), 4,
            ticker, reported::set);

    @Test
    void nanos_noLatencyYet_isTheMinimum() {
        assertThat(millis()).isEqualTo(50);
        ticker.advance(Duration.ofSeconds(3));
        assertThat(millis()).isEqualTo(50);
        assertThat(reported.get()).isEqualTo(Duration.ofMillis(50).toNanos());
    }

    @Test
    void nanos_latencyRises_timeoutFollowsFourTimesP99() {
        record(990, Duration.ofMillis(20));
        record(10, Duration.ofMillis(40)); // 1%: the p99 is 20 ms (HdrHistogram, 2 digits: within 1%)
        assertThat(millis()).as("not recomputed before the interval ends").isEqualTo(50);

        ticker.advance(AdaptiveTimeout.INTERVAL);
        assertThat((double) millis()).isCloseTo(80, within(1.0));
        assertThat(reported.get()).isEqualTo(timeout.nanos());

        record(1000, Duration.ofMillis(120)); // a starved CPU: every command takes 120 ms
        ticker.advance(AdaptiveTimeout.INTERVAL);
        assertThat((double) millis()).isCloseTo(480, within(5.0));
    }

    @Test
    void nanos_clampedBetweenMinAndMax() {
        record(100, Duration.ofMillis(1)); // 4 ms: below the configured timeout
        ticker.advance(AdaptiveTimeout.INTERVAL);
        assertThat(millis()).isEqualTo(50);

        record(100, Duration.ofMillis(400)); // 1.6 s: above the maximum
        ticker.advance(AdaptiveTimeout.INTERVAL);
        assertThat(millis()).isEqualTo(1000);
    }

    @Test
    void nanos_aStall_isForgottenAfterTheWindow() {
        record(100, Duration.ofMillis(100));
        ticker.advance(AdaptiveTimeout.INTERVAL);
        assertThat((double) millis()).isCloseTo(400, within(5.0));

        for (int i = 0; i < AdaptiveTimeout.INTERVALS; i++) {
            record(100, Duration.ofMillis(2));
            ticker.advance(AdaptiveTimeout.INTERVAL);
            timeout.nanos();
        }
        assertThat(millis()).isEqualTo(50);
    }

    @Test
    void nanos_idleLongerThanTheWindow_startsFromTheMinimum() {
        record(100, Duration.ofMillis(100));
        ticker.advance(AdaptiveTimeout.INTERVAL);
        assertThat((double) millis()).isCloseTo(400, within(5.0));

        ticker.advance(AdaptiveTimeout.INTERVAL.multipliedBy(AdaptiveTimeout.INTERVALS + 1));
        assertThat(millis()).isEqualTo(50);
    }

    @Test
    void constructor_configuredTimeoutAboveMax_wins() {
        AdaptiveTimeout t = new AdaptiveTimeout(Duration.ofSeconds(2), Duration.ofSeconds(1), 4, ticker, n -> { });
        assertThat(t.nanos()).isEqualTo(Duration.ofSeconds(2).toNanos());
    }

    private void record(int n, Duration latency) {
        for (int i = 0; i < n; i++) {
            timeout.record(latency.toNanos());
        }
    }

    private long millis() {
        return Duration.ofNanos(timeout.nanos()).toMillis();
    }
}
