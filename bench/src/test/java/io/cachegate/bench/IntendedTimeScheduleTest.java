package io.cachegate.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class IntendedTimeScheduleTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void intendedNanos_constantRate_spacesRequestsEvenly() {
        IntendedTimeSchedule schedule = new IntendedTimeSchedule(5_000, 1_000);

        assertThat(schedule.intendedNanos(0)).isEqualTo(5_000);
        assertThat(schedule.intendedNanos(1)).isEqualTo(5_000 + MS);
        assertThat(schedule.intendedNanos(1_000)).isEqualTo(5_000 + 1_000 * MS);
    }

    @Test
    void intendedNanos_fractionalPeriod_doesNotDrift() {
        IntendedTimeSchedule schedule = new IntendedTimeSchedule(0, 3);

        // 1/3 s does not divide into nanoseconds; the millionth request must still be on time.
        assertThat(schedule.intendedNanos(3_000_000)).isEqualTo(1_000_000L * TimeUnit.SECONDS.toNanos(1));
    }

    @Test
    void dueCount_variousTimes_countsRequestsAtOrBeforeNow() {
        IntendedTimeSchedule schedule = new IntendedTimeSchedule(10 * MS, 1_000);

        assertThat(schedule.dueCount(0)).isZero();
        assertThat(schedule.dueCount(10 * MS)).isEqualTo(1);
        assertThat(schedule.dueCount(10 * MS + MS - 1)).isEqualTo(1);
        assertThat(schedule.dueCount(11 * MS)).isEqualTo(2);
        assertThat(schedule.dueCount(60 * MS)).isEqualTo(51);
    }

    @Test
    void countBefore_oneSecondAtRate_isRateRequests() {
        IntendedTimeSchedule schedule = new IntendedTimeSchedule(0, 200);

        assertThat(schedule.countBefore(TimeUnit.SECONDS.toNanos(1))).isEqualTo(200);
        assertThat(schedule.countBefore(0)).isZero();
    }

    @Test
    void latencyMicros_generatorStalled_chargesTheStallToEveryLateRequest() {
        // An injected clock: requests are due every millisecond from t = 0, but the generator (or the
        // only connection) is stuck until t = 50 ms; then all 51 due requests go out and are answered
        // 0.2 ms later. Measured from the actual send they would all look like 0.2 ms.
        IntendedTimeSchedule schedule = new IntendedTimeSchedule(0, 1_000);
        long resumedAt = 50 * MS;
        long answeredAt = resumedAt + 200_000;
        Histogram histogram = new Histogram(RunStats.MAX_MICROS, 3);

        long due = schedule.dueCount(resumedAt);
        for (long i = 0; i < due; i++) {
            histogram.recordValue(IntendedTimeSchedule.latencyMicros(schedule.intendedNanos(i), answeredAt));
        }
        LatencySummary summary = LatencySummary.ofMicros(histogram);

        assertThat(due).isEqualTo(51);
        assertThat(summary.maxMs()).isBetween(50.1, 50.3);
        assertThat(summary.p50Ms()).isBetween(25.0, 25.5);
        assertThat(summary.p99Ms()).isGreaterThan(49.0);
        assertThat(IntendedTimeSchedule.latencyMicros(schedule.intendedNanos(50), answeredAt)).isEqualTo(200);
    }

    @Test
    void latencyMicros_roundsToNearestAndNeverNegative() {
        assertThat(IntendedTimeSchedule.latencyMicros(0, 1_499)).isEqualTo(1);
        assertThat(IntendedTimeSchedule.latencyMicros(0, 1_500)).isEqualTo(2);
        assertThat(IntendedTimeSchedule.latencyMicros(1_000, 0)).isZero();
    }

    @Test
    void constructor_zeroRate_isRejected() {
        assertThatThrownBy(() -> new IntendedTimeSchedule(0, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ratePerSecond");
    }
}
