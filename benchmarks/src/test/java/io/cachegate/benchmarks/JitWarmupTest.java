package io.cachegate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class JitWarmupTest {

    @Test
    void ticks_countAfterTheCommandName_evenWithSpacesAndParenthesesInIt() {
        // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
        String stat = "4242 (C2 Compiler) x) S 1 1 1 0 -1 4194560 10 0 0 0 123 45 0 0 20 0 30 0";
        assertThat(JitActivity.ticksOf(stat)).isEqualTo(168);
    }

    @Test
    void share_isTheCompilersPartOfTheProcessCpuBetweenTwoSamples() {
        JitActivity.Sample before = new JitActivity.Sample(1_000, 400);
        assertThat(new JitActivity.Sample(1_200, 450).compilerShareSince(before)).isEqualTo(0.25);
        assertThat(before.compilerShareSince(before)).isZero();
    }

    @Test
    void thisJvm_hasCompilerThreads_whoseTicksArePartOfItsOwn() {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux only");
        Optional<JitActivity.Sample> s = JitActivity.sample(ProcessHandle.current().pid());
        assertThat(s).isPresent();
        assertThat(s.get().compilerTicks()).isBetween(0L, s.get().processTicks());
    }

    @Test
    void aProcessWithoutAJit_isNotWarmedFurther() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux only");
        Process sleeper = new ProcessBuilder("sleep", "30").start();
        try {
            AtomicInteger slices = new AtomicInteger();
            assertThat(JitWarmup.untilQuiet(() -> JitActivity.sample(sleeper.pid()), length -> slices.incrementAndGet(),
                    Duration.ofMillis(10), Duration.ofSeconds(1))).isEmpty();
            assertThat(slices).hasValue(0);
        } finally {
            sleeper.destroy();
        }
        assertThat(JitWarmup.untilQuiet(() -> JitActivity.sample(Long.MAX_VALUE), length -> { }, Duration.ofMillis(10),
                Duration.ofSeconds(1)))
                .as("a process that is gone").isEmpty();
    }

    @Test
    void aJvmWhoseCompilerGoesQuiet_isWarmedUntilThen() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux only");
        long self = ProcessHandle.current().pid();
        // Slices that burn CPU on one thread: whatever this JVM still compiles soon falls under 5% of it.
        Optional<JitWarmup.Outcome> warmed = JitWarmup.untilQuiet(() -> JitActivity.sample(self), JitWarmupTest::spin,
                Duration.ofMillis(300), Duration.ofSeconds(30));
        assertThat(warmed).isPresent();
        assertThat(warmed.get().quiet()).isTrue();
        assertThat(warmed.get().lastShare()).isLessThan(JitWarmup.QUIET_SHARE);
        assertThat(warmed.get().describe()).contains("until its JIT was quiet");
    }

    @Test
    void aCompilerThatNeverQuietens_endsTheWarmUpAtItsBound_sayingSo() throws Exception {
        AtomicInteger slices = new AtomicInteger();
        // Half of every slice's CPU goes to the compiler.
        Optional<JitWarmup.Outcome> warmed = JitWarmup.untilQuiet(
                () -> Optional.of(new JitActivity.Sample(100L * slices.get(), 50L * slices.get())),
                length -> slices.incrementAndGet(), Duration.ofSeconds(2), Duration.ofSeconds(10));
        assertThat(slices).hasValue(5);
        assertThat(warmed.orElseThrow().quiet()).isFalse();
        assertThat(warmed.get().extra()).isEqualTo(Duration.ofSeconds(10));
        assertThat(warmed.get().describe()).isEqualTo("+10s, its JIT still at 50% of its CPU");
    }

    @Test
    void aSliceWithoutCpu_countsAsQuiet() throws Exception {
        Optional<JitWarmup.Outcome> warmed = JitWarmup.untilQuiet(() -> Optional.of(new JitActivity.Sample(7, 3)),
                length -> { }, Duration.ofSeconds(2), Duration.ofSeconds(10));
        assertThat(warmed.orElseThrow().quiet()).isTrue();
        assertThat(warmed.get().extra()).isEqualTo(Duration.ofSeconds(2));
    }

    private static void spin(Duration length) {
        long end = System.nanoTime() + length.toNanos();
        long x = 0;
        while (System.nanoTime() < end) {
            x += x * 31 + 7;
        }
        if (x == 42) {
            System.out.println(x);
        }
    }
}
