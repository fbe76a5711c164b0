package io.cachegate.benchmarks;

import java.util.List;
import picocli.CommandLine.Option;

/**
 * The simulator's latency model, for the scenarios that shape it ({@code @Mixin}); each gives its own defaults
 * to the constructor, shown as {@code ${DEFAULT-VALUE}}.
 */
final class SimulatorOptions {

    @Option(names = "--max-concurrency", description = "Simulator: sequences each replica serves at once "
            + "(default ${DEFAULT-VALUE}).")
    private int maxConcurrency;

    @Option(names = "--ttft-ms", description = "Simulator: fixed time to first token (default ${DEFAULT-VALUE}).")
    private int ttftMs;

    @Option(names = "--tpot-ms", description = "Simulator: time per output token (default ${DEFAULT-VALUE}).")
    private double tpotMs;

    SimulatorOptions(int maxConcurrency, int ttftMs, double tpotMs) {
        this.maxConcurrency = maxConcurrency;
        this.ttftMs = ttftMs;
        this.tpotMs = tpotMs;
    }

    int maxConcurrency() {
        return maxConcurrency;
    }

    int ttftMs() {
        return ttftMs;
    }

    double tpotMs() {
        return tpotMs;
    }

    /** The {@code simulate-backend} options that set this model. */
    List<String> args() {
        return List.of("--max-concurrency", Integer.toString(maxConcurrency), "--ttft-ms", Integer.toString(ttftMs),
                "--tpot-ms", Double.toString(tpotMs));
    }
}
