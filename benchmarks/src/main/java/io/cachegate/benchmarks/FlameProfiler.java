package io.cachegate.benchmarks;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Profiles a window of a child JVM's life with async-profiler and writes its CPU flame graph as HTML. The agent
 * library comes from async-profiler's Maven artifact ({@code tools.profiler:async-profiler}, which carries it for
 * Linux x64 and arm64 and for macOS) and is extracted to a directory of the run; the child loads it at start
 * ({@link #agentOption()}: idle until told), and {@link #start} and {@link #stop} send it commands through the
 * JDK's Attach API, as async-profiler's own {@code asprof} does (that artifact does not ship {@code asprof}). Nothing
 * of it runs in the gateway's code: the agent is a JVM option of the benchmark's child.
 */
final class FlameProfiler {

    /**
     * The events tried in order: async-profiler's {@code cpu} (perf_events where the kernel allows them, else its
     * per-thread CPU timer), then {@code itimer} (the process's CPU-time timer) if the agent refuses {@code cpu}.
     */
    static final List<String> EVENTS = List.of("cpu", "itimer");

    /**
     * A sample every millisecond of CPU time, not async-profiler's default 10: a measured run of a few seconds then
     * gives thousands of samples, enough for a frame of 1% to show. The cost: a signal and a stack walk a sample.
     */
    static final long INTERVAL_NANOS = 1_000_000;

    private final Path library;
    private final List<String> events;

    private FlameProfiler(Path library, List<String> events) {
        this.library = library;
        this.events = List.copyOf(events);
    }

    /**
     * Why this JVM cannot profile a child: it lacks the Attach API (a JRE has no {@code jdk.attach}), or the artifact
     * has no agent library for this platform; empty when it can.
     */
    static Optional<String> unavailable() {
        if (ModuleLayer.boot().findModule("jdk.attach").isEmpty()) {
            return Optional.of("flame graphs need a JDK (its jdk.attach module) to run the benchmark; "
                    + System.getProperty("java.home") + " has none");
        }
        Optional<String> resource = resource();
        if (resource.isEmpty() || FlameProfiler.class.getResource(resource.get()) == null) {
            return Optional.of("async-profiler has no agent library for " + System.getProperty("os.name") + " "
                    + System.getProperty("os.arch"));
        }
        return Optional.empty();
    }

    /** Extracts the agent library for this platform into {@code dir}; {@link #unavailable()} must be empty. */
    static FlameProfiler extract(Path dir) throws IOException {
        return extract(dir, EVENTS);
    }

    /** As {@link #extract(Path)}, trying {@code events} in order (a test tries one that fails first). */
    static FlameProfiler extract(Path dir, List<String> events) throws IOException {
        String resource = resource().orElseThrow(() -> new IOException(unavailable().orElse("no agent library")));
        Path library = dir.resolve("libasyncProfiler.so");
        try (InputStream in = FlameProfiler.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("no " + resource + " on the class path (tools.profiler:async-profiler)");
            }
            Files.copy(in, library, StandardCopyOption.REPLACE_EXISTING);
        }
        return new FlameProfiler(library.toAbsolutePath(), events);
    }

    /** The JVM option that loads the agent into a child at its start, idle until {@link #start}. */
    String agentOption() {
        return "-agentpath:" + library;
    }

    /**
     * Starts sampling in the JVM of process {@code pid} (started with {@link #agentOption()}) with the first of the
     * events it accepts; that event.
     */
    String start(long pid) throws IOException {
        for (String event : events) {
            try {
                command(pid, "start,event=" + event + ",interval=" + INTERVAL_NANOS);
                return event;
            } catch (AgentInitializationException refused) {
                // The agent said why in the child's output (e.g. "Perf events unavailable"): try the next event.
            }
        }
        throw new IOException("async-profiler in process " + pid + " started none of the events " + events
                + "; the child's log says why");
    }

    /**
     * Stops sampling in process {@code pid} and writes the flame graph of what it sampled, headed {@code title}, to
     * {@code html}; that file.
     */
    Path stop(long pid, Path html, String title) throws IOException {
        String file = html.toAbsolutePath().toString();
        if (file.contains(",") || title.contains(",")) {
            throw new IllegalArgumentException("async-profiler's options are comma-separated: no comma in " + file
                    + " or " + title);
        }
        try {
            command(pid, "stop,file=" + file + ",title=" + title);
        } catch (AgentInitializationException e) {
            throw new IOException("async-profiler in process " + pid + " could not stop (was it started?)", e);
        }
        if (!Files.isRegularFile(html)) {
            throw new IOException("async-profiler in process " + pid + " wrote no " + html);
        }
        return html;
    }

    /** Loads the agent library into process {@code pid} again with {@code options}: how the agent takes a command. */
    private void command(long pid, String options) throws IOException, AgentInitializationException {
        VirtualMachine vm;
        try {
            vm = VirtualMachine.attach(Long.toString(pid));
        } catch (AttachNotSupportedException e) {
            throw new IOException("cannot attach to process " + pid + ": " + e.getMessage(), e);
        }
        try {
            vm.loadAgentPath(library.toString(), options);
        } catch (AgentLoadException e) {
            throw new IOException("process " + pid + " could not load " + library + ": " + e.getMessage(), e);
        } finally {
            vm.detach();
        }
    }

    /** Where the artifact keeps the agent library for this OS and architecture. */
    private static Optional<String> resource() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        if (os.startsWith("mac")) {
            return Optional.of("/macos/libasyncProfiler.so");
        }
        if (os.startsWith("linux") && (arch.equals("amd64") || arch.equals("x86_64"))) {
            return Optional.of("/linux-x64/libasyncProfiler.so");
        }
        if (os.startsWith("linux") && (arch.equals("aarch64") || arch.equals("arm64"))) {
            return Optional.of("/linux-arm64/libasyncProfiler.so");
        }
        return Optional.empty();
    }
}
