package io.cachegate.benchmarks;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Busy processes that starve the machine's cores ({@code sh -c 'while :; do :; done'}), as noisy neighbours
 * do; all killed by {@link #close()}, and by a shutdown hook should the JVM exit first.
 */
public final class CpuHogs implements AutoCloseable {

    private final List<Process> hogs = new ArrayList<>();
    private final Thread hook = new Thread(this::close, "cpu-hogs-cleanup");

    private CpuHogs() {
    }

    /** Starts {@code count} busy processes. */
    public static CpuHogs start(int count) throws IOException {
        CpuHogs out = new CpuHogs();
        Runtime.getRuntime().addShutdownHook(out.hook);
        try {
            for (int i = 0; i < count; i++) {
                out.hogs.add(new ProcessBuilder("sh", "-c", "while :; do :; done")
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true).start());
            }
        } catch (IOException e) {
            out.close();
            throw e;
        }
        return out;
    }

    public int count() {
        return hogs.size();
    }

    @Override
    public synchronized void close() {
        for (Process p : hogs) {
            p.destroyForcibly();
        }
        for (Process p : hogs) {
            try {
                p.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        hogs.clear();
        if (Thread.currentThread() != hook) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException | IllegalArgumentException gone) {
                // shutting down, or already removed
            }
        }
    }
}
