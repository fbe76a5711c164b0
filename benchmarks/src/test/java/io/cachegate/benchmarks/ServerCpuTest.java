package io.cachegate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ServerCpuTest {

    @Test
    void used_growsWithWorkDone() {
        Duration before = ServerCpu.used(ProcessHandle.current());
        long deadline = System.nanoTime() + 10_000_000_000L; // however busy the machine, 50 ms of CPU come by then
        Duration grown = Duration.ZERO;
        double sink = 0;
        while (System.nanoTime() < deadline && grown.compareTo(Duration.ofMillis(50)) < 0) {
            for (int i = 0; i < 100_000; i++) {
                sink += Math.sqrt(sink + i);
            }
            grown = ServerCpu.used(ProcessHandle.current()).minus(before);
        }
        assertThat(sink).isPositive();
        assertThat(grown).isGreaterThanOrEqualTo(Duration.ofMillis(50));
    }

    @Test
    void microsPerRequest_dividesTheDifference_andIsNaNWithoutRequests() {
        assertThat(ServerCpu.microsPerRequest(Duration.ofMillis(100), Duration.ofMillis(400), 10_000)).isEqualTo(30.0);
        assertThat(ServerCpu.microsPerRequest(Duration.ZERO, Duration.ofMillis(1), 0)).isNaN();
    }
}
