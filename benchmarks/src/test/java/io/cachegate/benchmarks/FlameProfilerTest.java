package io.cachegate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * async-profiler for real: a child JVM started with the agent, profiled for a second, writes a flame graph of the
 * thread it was spinning in. Skipped only where this JVM or platform cannot profile (no Attach API, no library
 * for the platform); an agent that does not load into the child fails, as {@code bench compare --flame} would.
 */
class FlameProfilerTest {

    @TempDir
    Path dir;

    @Test
    void profiledWindow_writesAnHtmlFlameGraph_ofWhatTheChildRan() throws Exception {
        Assumptions.assumeTrue(FlameProfiler.unavailable().isEmpty(), () -> FlameProfiler.unavailable().orElseThrow());
        FlameProfiler profiler = FlameProfiler.extract(dir);
        Process child = spinner(profiler);
        try {
            String event = profiler.start(child.pid());
            Thread.sleep(1_000);
            Path html = dir.resolve("hit-memory@25.html");
            profiler.stop(child.pid(), html, "spinner by test (" + event + ")");

            assertThat(event).isIn(FlameProfiler.EVENTS);
            String graph = Files.readString(html, StandardCharsets.UTF_8);
            assertThat(graph).startsWith("<!DOCTYPE html>");
            // Frame names are stored prefix-compressed: the spinning thread's bottom frame is whole.
            assertThat(graph.contains("<h1>spinner by test")).as("the title").isTrue();
            assertThat(graph.contains("FlameProfilerTest$Spinner.main")).as("the child's frames").isTrue();
        } finally {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void anEventTheAgentRefuses_theNextOneIsTried() throws Exception {
        Assumptions.assumeTrue(FlameProfiler.unavailable().isEmpty(), () -> FlameProfiler.unavailable().orElseThrow());
        // No such perf event: the agent refuses it as it refuses cpu where perf events and timers are not allowed.
        FlameProfiler profiler = FlameProfiler.extract(dir, List.of("no_such_event", "itimer"));
        Process child = spinner(profiler);
        try {
            assertThat(profiler.start(child.pid())).isEqualTo("itimer");
            Thread.sleep(300);
            Path html = dir.resolve("proxy.html");
            profiler.stop(child.pid(), html, "itimer");
            assertThat(Files.readString(html, StandardCharsets.UTF_8).contains("FlameProfilerTest$Spinner.main"))
                    .as("the child's frames").isTrue();
        } finally {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** A JVM with the agent that spins in {@link Spinner#spin}, once it said so; a child that cannot start fails. */
    private Process spinner(FlameProfiler profiler) throws IOException {
        Process p = new ProcessBuilder(ChildLauncher.currentJava(), profiler.agentOption(), "-cp",
                System.getProperty("java.class.path"), Spinner.class.getName()).redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder said = new StringBuilder();
        for (String line = out.readLine(); line != null; line = out.readLine()) {
            if (line.equals("spinning")) {
                // Keep draining its output (the agent's messages) so the child never blocks on a full pipe.
                Thread drain = new Thread(() -> out.lines().forEach(l -> { }), "spinner-output");
                drain.setDaemon(true);
                drain.start();
                return p;
            }
            said.append(line).append('\n');
        }
        throw new AssertionError("the agent library did not load into a child JVM: " + said);
    }

    /** The profiled child: burns CPU in one method until it is killed. */
    static final class Spinner {

        public static void main(String[] args) {
            System.out.println("spinning");
            System.out.flush();
            double sink = 0;
            while (sink >= 0) {
                sink += spin();
            }
        }

        static double spin() {
            double s = 0;
            for (int i = 1; i < 100_000; i++) {
                s += Math.sqrt(i) / i;
            }
            return s;
        }
    }
}
