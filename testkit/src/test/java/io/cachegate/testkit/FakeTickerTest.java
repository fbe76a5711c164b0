package io.cachegate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class FakeTickerTest {

    @Test
    void new_startsAtNonZeroNanosAndTheDefaultWallStart() {
        FakeTicker ticker = new FakeTicker();

        assertThat(ticker.nanos()).isEqualTo(FakeTicker.START_NANOS).isNotZero();
        assertThat(ticker.wallMillis()).isEqualTo(FakeTicker.DEFAULT_WALL_START.toEpochMilli());
    }

    @Test
    void nanos_withoutAdvance_standsStill() {
        FakeTicker ticker = new FakeTicker();

        assertThat(ticker.nanos()).isEqualTo(ticker.nanos());
        assertThat(ticker.wallMillis()).isEqualTo(ticker.wallMillis());
    }

    @Test
    void advance_movesNanosAndWallMillisTogether() {
        FakeTicker ticker = new FakeTicker(Instant.ofEpochMilli(5_000));

        ticker.advance(Duration.ofMillis(1500));

        assertThat(ticker.nanos() - FakeTicker.START_NANOS).isEqualTo(1_500_000_000L);
        assertThat(ticker.wallMillis()).isEqualTo(6_500);
    }

    @Test
    void advanceNanos_belowOneMillisecond_wallMillisMovesOnlyWhenAWholeOneHasPassed() {
        FakeTicker ticker = new FakeTicker(Instant.ofEpochMilli(0));

        ticker.advanceNanos(999_999);
        assertThat(ticker.wallMillis()).isZero();
        ticker.advanceNanos(1);
        assertThat(ticker.wallMillis()).isEqualTo(1);
        assertThat(ticker.nanos() - FakeTicker.START_NANOS).isEqualTo(1_000_000L);
    }

    @Test
    void advance_negative_rejected() {
        FakeTicker ticker = new FakeTicker();

        assertThatThrownBy(() -> ticker.advance(Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
        assertThat(ticker.nanos()).isEqualTo(FakeTicker.START_NANOS);
    }

    @Test
    void advance_fromManyThreads_losesNoStep() {
        FakeTicker ticker = new FakeTicker();

        CompletableFuture<?>[] writers = IntStream.range(0, 8)
                .mapToObj(i -> CompletableFuture.runAsync(() -> {
                    for (int j = 0; j < 10_000; j++) {
                        ticker.advanceNanos(1);
                    }
                }))
                .toArray(CompletableFuture[]::new);
        CompletableFuture.allOf(writers).join();

        assertThat(ticker.nanos() - FakeTicker.START_NANOS).isEqualTo(80_000L);
    }
}
