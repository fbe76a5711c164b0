package io.cachegate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ServerCpuTest {

    @Test
    void used_growsWithWorkDone() {
        Duration before = ServerCpu.used(ProcessHandle.current());
        long deadline = System.nanoTime() + 200_000_000L;
        double sink = 0;
        while (System.nanoTime() < deadline) {
            sink += Math.sqrt(sink + 1);
        }
        Duration after = ServerCpu.used(ProcessHandle.current());
        assertThat(sink).isPositive();
        assertThat(after.minus(before)).isGreaterThanOrEqualTo(Duration.ofMillis(100));
    }

    @Test
    void microsPerRequest_dividesTheDifference_andIsNaNWithoutRequests() {
        assertThat(ServerCpu.microsPerRequest(Duration.ofMillis(100), Duration.ofMillis(400), 10_000)).isEqualTo(30.0);
        assertThat(ServerCpu.microsPerRequest(Duration.ZERO, Duration.ofMillis(1), 0)).isNaN();
    }
}
