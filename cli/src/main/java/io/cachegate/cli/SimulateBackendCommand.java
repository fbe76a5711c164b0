package io.cachegate.cli;

import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code cachegate simulate-backend}: runs the OpenAI-compatible backend simulator until the JVM is stopped. */
@Command(name = "simulate-backend", mixinStandardHelpOptions = true,
        description = "Runs an OpenAI-compatible backend simulator (vLLM wire format) with deterministic answers, "
                + "a latency model, a concurrency limit and fault injection.")
public final class SimulateBackendCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to bind (default: ${DEFAULT-VALUE}).")
    private String host;

    @Option(names = "--port", defaultValue = "8000", description = "Port to bind, 0 for any (default: ${DEFAULT-VALUE}).")
    private int port;

    @Option(names = "--ttft-ms", defaultValue = "0", description = "Fixed time to first token in ms (default: ${DEFAULT-VALUE}).")
    private long ttftMs;

    @Option(names = "--prefill-ms-per-token", defaultValue = "0",
            description = "Added to the time to first token per prompt token, in ms (default: ${DEFAULT-VALUE}).")
    private double prefillMsPerToken;

    @Option(names = "--tpot-ms", defaultValue = "0", description = "Time per output token in ms (default: ${DEFAULT-VALUE}).")
    private double tpotMs;

    @Option(names = "--max-concurrency", defaultValue = "256",
            description = "Requests generating at once; the rest queue (default: ${DEFAULT-VALUE}).")
    private int maxConcurrency;

    @Option(names = "--max-queue", defaultValue = "10000",
            description = "Requests that may wait; beyond it 503 (default: ${DEFAULT-VALUE}).")
    private int maxQueue;

    @Option(names = "--error-rate", defaultValue = "0",
            description = "Fraction of requests answered with 500, 0 to 1 (default: ${DEFAULT-VALUE}).")
    private double errorRate;

    @Option(names = "--hang-rate", defaultValue = "0",
            description = "Fraction of requests never answered, 0 to 1 (default: ${DEFAULT-VALUE}).")
    private double hangRate;

    @Option(names = "--default-max-tokens", defaultValue = "64",
            description = "Output tokens when a request gives no max_tokens (default: ${DEFAULT-VALUE}).")
    private int defaultMaxTokens;

    @Option(names = "--models", split = ",", defaultValue = "llama-3.1-8b,qwen2.5-0.5b",
            description = "Served model ids, comma-separated (default: ${DEFAULT-VALUE}).")
    private List<String> models;

    @Option(names = "--seed", defaultValue = "42", description = "Seed of the fault injection (default: ${DEFAULT-VALUE}).")
    private long seed;

    @Override
    public Integer call() throws InterruptedException {
        SimulatorOptions options;
        try {
            options = new SimulatorOptions(host, port, ttftMs, prefillMsPerToken, tpotMs, maxConcurrency, maxQueue,
                    errorRate, hangRate, defaultMaxTokens, models, seed);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        BackendSimulator simulator = BackendSimulator.start(options);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            simulator.close();
            stopped.countDown();
        }, "simulator-shutdown"));
        spec.commandLine().getOut().println("simulator listening on " + simulator.baseUrl());
        spec.commandLine().getOut().flush();
        stopped.await();
        return 0;
    }
}
