package io.cachegate.benchmarks;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * How much of a JVM process's CPU its JIT compiler threads used: read from Linux's {@code /proc/PID/task/*}, where
 * HotSpot names them {@code C1 CompilerThread0}, {@code C2 CompilerThread0}, ... (the kernel keeps the first 15
 * characters). A benchmark's warm-up is over when the compiler has gone quiet, not after a fixed time: on two busy
 * cores C2 still took 40% of a proxying gateway's CPU 25 s into a run, and the hot paths ran at a fifth of their
 * final speed until it was done.
 */
final class JitActivity {

    private static final Path PROC = Path.of("/proc");

    /** CPU clock ticks (user and system) of the whole process and of its compiler threads, at one moment. */
    record Sample(long processTicks, long compilerTicks) {

        /** The compiler threads' share of the process's CPU between {@code earlier} and this sample; 0 when idle. */
        double compilerShareSince(Sample earlier) {
            long process = processTicks - earlier.processTicks;
            return process <= 0 ? 0 : (double) (compilerTicks - earlier.compilerTicks) / process;
        }
    }

    private JitActivity() {
    }

    /**
     * A sample of {@code pid}; empty when it cannot be read (not Linux, the process gone) or the process has no
     * compiler threads (not a JVM, or one running interpreted only): then there is nothing to wait for.
     */
    static Optional<Sample> sample(long pid) {
        Path process = PROC.resolve(Long.toString(pid));
        try {
            long total = ticks(process.resolve("stat"));
            long compiler = 0;
            boolean any = false;
            try (DirectoryStream<Path> tasks = Files.newDirectoryStream(process.resolve("task"))) {
                for (Path task : tasks) {
                    String name;
                    try {
                        name = Files.readString(task.resolve("comm")).trim();
                        if (!name.contains("CompilerThre")) {
                            continue;
                        }
                        compiler += ticks(task.resolve("stat"));
                        any = true;
                    } catch (IOException threadEnded) {
                        // a thread that ended between the listing and the read used no more CPU
                    }
                }
            }
            return any ? Optional.of(new Sample(total, compiler)) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * utime + stime of a {@code stat} file: fields 14 and 15, counted after the command name, which is in
     * parentheses and may itself hold spaces.
     */
    static long ticks(Path stat) throws IOException {
        return ticksOf(Files.readString(stat));
    }

    static long ticksOf(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
        // f[0] is field 3 (the state): utime is field 14, stime field 15
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }
}
