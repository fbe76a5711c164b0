package io.cachegate.benchmarks;

import io.cachegate.config.Durations;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The options every scenario shares, declared once and mixed into each ({@code @Mixin}). A scenario gives its
 * own defaults to the constructor; picocli shows them as {@code ${DEFAULT-VALUE}} (the fields' initial values).
 */
final class ScenarioOptions {

    /** The child processes' JVM options unless a scenario needs others. */
    static final String CHILD_JVM_OPTS = "-Xmx1g -XX:+UseParallelGC";

    @Option(names = "--duration", description = "Recorded time of each phase, e.g. 500ms, 20s, 2m (default ${DEFAULT-VALUE}).")
    private String duration;

    @Option(names = "--warmup", description = "Unrecorded load before measuring, so the JIT has compiled the hot paths "
            + "(default ${DEFAULT-VALUE}).")
    private String warmup;

    @Option(names = "--rounds", description = "Rounds, the targets alternating in each; medians are reported "
            + "(default ${DEFAULT-VALUE}).")
    private int rounds;

    @Option(names = "--gateway-threads", description = "Gateway event loop threads; 0 = the gateway's default, one per "
            + "core (default ${DEFAULT-VALUE}).")
    private int gatewayThreads;

    @Option(names = "--child-jvm-opts", description = "JVM options of the simulator and gateway processes "
            + "(default ${DEFAULT-VALUE}).")
    private String childJvmOpts;

    @Option(names = "--json", description = "Print the result as JSON.")
    private boolean json;

    ScenarioOptions(String duration, String warmup, int rounds, String childJvmOpts) {
        this.duration = duration;
        this.warmup = warmup;
        this.rounds = rounds;
        this.childJvmOpts = childJvmOpts;
    }

    /** {@code --duration}, parsed. */
    Duration duration() {
        return parse("--duration", duration);
    }

    /** {@code --warmup}, parsed. */
    Duration warmup() {
        return parse("--warmup", warmup);
    }

    int rounds() {
        return rounds;
    }

    int gatewayThreads() {
        return gatewayThreads;
    }

    String childJvmOpts() {
        return childJvmOpts;
    }

    boolean json() {
        return json;
    }

    /** Adds the problems of the shared options to {@code problems}, each naming its option. */
    void check(List<String> problems) {
        if (rounds < 1) {
            problems.add("--rounds must be >= 1 (was " + rounds + ")");
        }
        if (gatewayThreads < 0) {
            problems.add("--gateway-threads must be >= 0 (was " + gatewayThreads + ")");
        }
        for (String option : new String[] {"--duration", "--warmup"}) {
            try {
                parse(option, "--duration".equals(option) ? duration : warmup);
            } catch (IllegalArgumentException e) {
                problems.add(e.getMessage());
            }
        }
    }

    /** A duration as the policy writes it; a bare {@code 0} is zero too. */
    private static Duration parse(String option, String text) {
        try {
            return "0".equals(text.strip()) ? Duration.ZERO : Durations.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
        }
    }
}
