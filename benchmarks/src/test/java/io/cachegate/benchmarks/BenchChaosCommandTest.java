package io.cachegate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The pure parts of {@code bench chaos}: fault names, the soak's slope, and reading a heap after GC. */
class BenchChaosCommandTest {

    @Test
    void parse_optionNames_roundTrip() {
        for (ChaosFault f : ChaosFault.values()) {
            assertThat(ChaosFault.parse(f.option)).isSameAs(f);
        }
        assertThat(ChaosFault.parse(" Redis-Stall ")).isSameAs(ChaosFault.REDIS_STALL);
    }

    @Test
    void parse_unknown_namesTheKnownOnes() {
        assertThatThrownBy(() -> ChaosFault.parse("meteor")).hasMessageContaining("unknown fault 'meteor'")
                .hasMessageContaining("redis-stall").hasMessageContaining("gateway-kill");
    }

    @Test
    void slope_leastSquares_kibPerMinute() {
        // 100, 110, 120 KiB at minutes 0, 1, 2: 10 KiB a minute.
        assertThat(ChaosSoak.slope(List.of(0.0, 1.0, 2.0), List.of(100L, 110L, 120L))).isEqualTo(10.0);
        // Up and back down again: 0.
        assertThat(ChaosSoak.slope(List.of(0.0, 1.0, 2.0, 3.0), List.of(100L, 110L, 110L, 100L))).isEqualTo(0.0);
        assertThat(ChaosSoak.slope(List.of(1.0), List.of(5L))).isNaN();
    }

    @Test
    void heapUsedKib_parallelGc_sumsTheGenerations_notMetaspace() {
        String info = """
                12345:
                 PSYoungGen      total 76288K, used 1310K [0x00000000eab00000, 0x00000000f0000000, 0x0000000100000000)
                  eden space 65536K, 2% used [0x00000000eab00000,0x00000000eac47b10,0x00000000eeb00000)
                 ParOldGen       total 175104K, used 20480K [0x00000000c0000000, 0x00000000cab00000, 0x00000000eab00000)
                  object space 175104K, 11% used [0x00000000c0000000,0x00000000c1400000,0x00000000cab00000)
                 Metaspace       used 30000K, committed 30500K, reserved 1114112K
                  class space    used 3800K, committed 4000K, reserved 1048576K
                """;
        assertThat(StressFleet.heapUsedKib(info)).isEqualTo(1310 + 20480);
    }

    @Test
    void heapUsedKib_g1_readsTheHeapLine() {
        String info = """
                12345:
                 garbage-first heap   total 262144K, used 23456K [0x00000000f0000000, 0x0000000100000000)
                  region size 1024K, 1 young (1024K), 0 survivors (0K)
                 Metaspace       used 30000K, committed 30500K, reserved 1114112K
                """;
        assertThat(StressFleet.heapUsedKib(info)).isEqualTo(23456);
    }
}
