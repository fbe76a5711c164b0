package io.cachegate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The {@code bench} command tree: its scenarios and their shared options, without running any. */
class BenchCommandTest {

    @Test
    void benchHelp_listsOverheadScenario() {
        Run run = run("--help");
        assertThat(run.exit).isZero();
        assertThat(run.out).contains("overhead");
    }

    @Test
    void benchHelp_listsEveryScenario() {
        Run run = run("--help");
        assertThat(run.exit).isZero();
        assertThat(run.out).contains("overhead", "exact-cache", "semantic", "overload", "prefix-affinity", "compare", "fleet");
    }

    @Test
    void scenarioHelp_showsTheSharedOptionsWithEachScenariosDefaults() {
        assertThat(run("overhead", "--help").out)
                .containsPattern("--duration=<duration>\\s+Recorded time of each phase, e.g. 500ms, 20s, 2m\\s+\\(default\\s+20s\\)")
                .containsPattern("--warmup=<warmup>\\s+[^(]*\\(default\\s+15s\\)")
                .containsPattern("--rounds=<rounds>\\s+[^(]*\\(default\\s+3\\)");
        assertThat(run("overload", "--help").out).containsPattern("\\(default\\s+15s\\)").containsPattern("\\(default\\s+3s\\)")
                .containsPattern("--rounds=<rounds>\\s+[^(]*\\(default\\s+2\\)");
        assertThat(run("prefix-affinity", "--help").out).containsPattern("\\(default\\s+0s\\)")
                .containsPattern("\\(default\\s+-Xmx512m\\s+-XX:\\+UseParallelGC\\)");
        for (String scenario : new String[] {"overhead", "exact-cache", "semantic", "overload", "prefix-affinity"}) {
            assertThat(run(scenario, "--help").out).as(scenario)
                    .contains("--duration", "--warmup", "--rounds", "--gateway-threads", "--child-jvm-opts", "--json");
        }
    }

    @Test
    void scenario_badSharedOptions_areAllNamedBeforeAnythingStarts() {
        Run run = run("overhead", "--rounds", "0", "--gateway-threads", "-1", "--duration", "soon");
        assertThat(run.exit).isEqualTo(2);
        assertThat(run.err).contains("--rounds must be >= 1", "--gateway-threads must be >= 0", "--duration:");
    }

    record Run(int exit, String out, String err) {
    }

    /** Runs the {@code bench} command tree in-process (as {@code cachegate bench <args>}), capturing its output. */
    static Run run(String... args) {
        PrintStream originalOut = System.out;
        PrintStream originalErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            int exit = new CommandLine(new BenchCommand(new ChildLauncher("unused.Main"))).execute(args);
            return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(originalOut);
            System.setErr(originalErr);
        }
    }
}
