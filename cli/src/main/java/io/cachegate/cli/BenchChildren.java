package io.cachegate.cli;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The child processes and the temp dir of one benchmark run. Stopped and deleted once, by
 * {@link #close()} or by the JVM shutdown hook it installs (so Ctrl-C leaves no simulator behind).
 */
final class BenchChildren implements AutoCloseable {

    private final String prefix;
    private final String jvmOptions;
    private final List<Process> children = new ArrayList<>();
    private final Thread hook;
    private final Path dir;
    private boolean closed;

    /** {@code prefix} names the log files ({@code <tmpdir>/cachegate-bench-<prefix>-<name>.log}). */
    BenchChildren(String prefix, String jvmOptions) throws IOException {
        this.prefix = prefix;
        this.jvmOptions = jvmOptions;
        this.dir = Files.createTempDirectory("cachegate-bench-" + prefix);
        this.hook = new Thread(this::closeQuietly, "bench-" + prefix + "-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    Path dir() {
        return dir;
    }

    File log(String name) {
        return LocalProcesses.logFile(prefix + "-" + name);
    }

    /** Starts {@code cachegate <args>} in its own JVM. */
    Process start(String name, String... args) throws IOException {
        return start(name, List.of(), args);
    }

    /** Starts {@code cachegate <args>} in its own JVM, with JVM options for this child only. */
    synchronized Process start(String name, List<String> extraJvmOptions, String... args) throws IOException {
        if (closed) {
            throw new IllegalStateException("closed");
        }
        Process p = LocalProcesses.cachegate(prefix + "-" + name, jvmOptions, extraJvmOptions, args);
        children.add(p);
        return p;
    }

    /** Takes a process started elsewhere (Redis, nginx) into the same clean-up. */
    synchronized Process adopt(Process p) {
        if (closed) {
            p.destroyForcibly();
            throw new IllegalStateException("closed");
        }
        children.add(p);
        return p;
    }

    /** Stops one child now and waits for it (up to 10 s, then kills it). */
    void stop(Process p) throws InterruptedException {
        synchronized (this) {
            children.remove(p);
        }
        p.destroy();
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() {
        closeQuietly();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run
        }
    }

    private void closeQuietly() {
        List<Process> stopping;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            stopping = new ArrayList<>(children);
        }
        for (Process p : stopping) {
            p.destroy();
        }
        for (Process p : stopping) {
            try {
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly); // nginx's workers, say
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException | UncheckedIOException ignored) {
            // best effort: a leftover temp dir is not worth failing the run for
        }
    }
}
