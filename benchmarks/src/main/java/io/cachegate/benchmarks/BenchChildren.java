package io.cachegate.benchmarks;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
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
    private final ChildLauncher launcher;
    private final String jvmOptions;
    private final List<Process> children = new ArrayList<>();
    private final Thread hook;
    private final Path dir;
    private boolean closed;

    /**
     * {@code prefix} names the log files ({@code <tmpdir>/cachegate-bench-<prefix>-<name>.log}); every child
     * runs with {@code jvmOptions} (whitespace-separated).
     */
    BenchChildren(String prefix, ChildLauncher launcher, String jvmOptions) throws IOException {
        this.prefix = prefix;
        this.launcher = launcher;
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
    Process start(String name, List<String> extraJvmOptions, String... args) throws IOException {
        return start(name, ChildLauncher.currentJava(), extraJvmOptions, args);
    }

    /** Starts {@code cachegate <args>} on the {@code java} executable, with JVM options for this child only. */
    synchronized Process start(String name, String java, List<String> extraJvmOptions, String... args)
            throws IOException {
        if (closed) {
            throw new IllegalStateException("closed");
        }
        Process p = launcher.start(log(name), java, jvmOptions, extraJvmOptions, args);
        children.add(p);
        return p;
    }

    /** Starts {@code cachegate simulate-backend} on free ports with {@code options}; not yet waited for. */
    ChildSimulator simulator(String name, int replicas, String... options) throws IOException {
        int port = replicas == 1 ? LocalProcesses.freePort() : LocalProcesses.freePorts(replicas);
        List<String> args = new ArrayList<>(List.of("simulate-backend", "--port", Integer.toString(port)));
        if (replicas != 1) {
            args.addAll(List.of("--replicas", Integer.toString(replicas)));
        }
        args.addAll(List.of(options));
        return new ChildSimulator(start(name, args.toArray(String[]::new)), port, replicas);
    }

    /** Starts {@code cachegate serve} on two free ports with {@code policy}; not yet waited for. */
    ChildGateway gateway(String name, List<String> extraJvmOptions, GatewayPolicy policy) throws IOException {
        return gateway(name, ChildLauncher.currentJava(), extraJvmOptions, policy);
    }

    /** Starts {@code cachegate serve} on the {@code java} executable, as {@link #gateway(String, List, GatewayPolicy)}. */
    ChildGateway gateway(String name, String java, List<String> extraJvmOptions, GatewayPolicy policy)
            throws IOException {
        int port = LocalProcesses.freePort();
        int admin = LocalProcesses.freePort();
        Path file = dir.resolve("policy-" + name + ".yaml");
        Files.writeString(file, policy.yaml(port, admin));
        Process p = start("gateway-" + name, java, extraJvmOptions, "serve", "--config", file.toString());
        return new ChildGateway(name, URI.create((policy.tls() ? "https" : "http") + "://127.0.0.1:" + port),
                URI.create("http://127.0.0.1:" + admin), p);
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

    /** Kills one child now with SIGKILL (no shutdown hooks, no goodbye) and waits until it is gone. */
    void kill(Process p) throws InterruptedException {
        synchronized (this) {
            children.remove(p);
        }
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
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
