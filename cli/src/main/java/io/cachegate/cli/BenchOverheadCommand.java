package io.cachegate.cli;

import io.cachegate.bench.BenchOptions;
import io.cachegate.bench.BenchReport;
import io.cachegate.bench.GeneratorSpec;
import io.cachegate.bench.LatencySummary;
import io.cachegate.bench.LoadGenerator;
import io.cachegate.bench.RequestSources;
import io.cachegate.config.Durations;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cachegate bench overhead}: the gateway's added latency and throughput cost. Starts a
 * zero-latency simulator and a gateway in front of it as separate processes (all on this machine,
 * as a sidecar would be), then measures in one run: open-loop latency at a fixed rate, direct and through the gateway in
 * alternating rounds, and closed-loop throughput direct and through the gateway.
 */
@Command(name = "overhead", mixinStandardHelpOptions = true,
        description = "Measure the latency and throughput cost of the gateway against a zero-latency simulator.")
final class BenchOverheadCommand implements Callable<Integer> {

    private static final Duration PHASE_RAMP = Duration.ofSeconds(2);

    @Option(names = "--rate", defaultValue = "1000", description = "Open-loop rate, requests/s (default ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--duration", defaultValue = "20s", description = "Recorded time of each phase (default ${DEFAULT-VALUE}).")
    String duration;

    @Option(names = "--warmup", defaultValue = "15s",
            description = "Closed-loop warm-up of both processes before measuring, so the JIT has compiled the hot paths (default ${DEFAULT-VALUE}).")
    String warmup;

    @Option(names = "--rounds", defaultValue = "3",
            description = "Open-loop rounds, each direct then via the gateway; the medians are reported (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--connections", defaultValue = "32", description = "Connections for the closed-loop throughput phase (default ${DEFAULT-VALUE}).")
    int connections;

    @Option(names = "--gateway-threads", defaultValue = "0",
            description = "Gateway event loop threads; 0 = the gateway's default, one per core (default ${DEFAULT-VALUE}).")
    int gatewayThreads;

    @Option(names = "--stream-fraction", defaultValue = "0", description = "Fraction of streamed requests (default ${DEFAULT-VALUE}).")
    double streamFraction;

    @Option(names = "--child-jvm-opts", defaultValue = "-Xmx1g -XX:+UseParallelGC",
            description = "JVM options of the simulator and gateway processes (default ${DEFAULT-VALUE}).")
    String childJvmOpts;

    @Option(names = "--json", description = "Print the result as JSON.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        Duration recorded = Durations.parse(duration);
        Duration warm = Durations.parse(warmup);
        int simPort = LocalProcesses.freePort();
        int gatewayPort = LocalProcesses.freePort();
        int adminPort = LocalProcesses.freePort();
        Path policy = Files.createTempFile("cachegate-bench", ".yaml");
        Files.writeString(policy, """
                server: { host: 127.0.0.1, port: %d, admin_port: %d, io_threads: %d }
                backends:
                  - name: sim
                    urls: ["http://127.0.0.1:%d"]
                    max_connections_per_url: 256
                routes:
                  - match: { model: "*" }
                    backend: sim
                """.formatted(gatewayPort, adminPort, gatewayThreads, simPort));
        List<Process> children = new ArrayList<>();
        try {
            children.add(child("sim", "simulate-backend", "--port", Integer.toString(simPort)));
            children.add(child("gateway", "serve", "--config", policy.toString()));
            LocalProcesses.awaitPort(simPort);
            LocalProcesses.awaitPort(gatewayPort);
            URI direct = URI.create("http://127.0.0.1:" + simPort);
            URI gateway = URI.create("http://127.0.0.1:" + gatewayPort);
            System.err.printf("simulator pid %d on %s, gateway pid %d on %s (io_threads %d)%n",
                    children.get(0).pid(), direct, children.get(1).pid(), gateway, gatewayThreads);
            // The gateway path warms the simulator too; every phase then has a short unrecorded ramp of its own.
            run(gateway, BenchOptions.Mode.CLOSED, warm, Duration.ZERO, "warm-up (not recorded)");
            // Rounds alternate direct and gateway, so noise from the shared machine falls on both alike.
            List<BenchReport[]> rounds = new ArrayList<>();
            long errors = 0;
            for (int r = 1; r <= this.rounds; r++) {
                BenchReport d = run(direct, BenchOptions.Mode.OPEN, recorded, PHASE_RAMP, "round " + r + ": open loop, direct");
                BenchReport g = run(gateway, BenchOptions.Mode.OPEN, recorded, PHASE_RAMP, "round " + r + ": open loop, via gateway");
                rounds.add(new BenchReport[] {d, g});
                errors += g.errors();
            }
            BenchReport closedDirect = run(direct, BenchOptions.Mode.CLOSED, recorded, PHASE_RAMP, "closed loop, direct");
            BenchReport closedGateway = run(gateway, BenchOptions.Mode.CLOSED, recorded, PHASE_RAMP, "closed loop, via gateway");
            print(rounds, closedDirect, closedGateway);
            return errors == 0 && closedGateway.errors() == 0 ? 0 : 1;
        } finally {
            for (Process p : children) {
                p.destroy();
            }
            for (Process p : children) {
                p.waitFor();
            }
            Files.deleteIfExists(policy);
        }
    }

    private BenchReport run(URI target, BenchOptions.Mode mode, Duration recorded, Duration warm, String label)
            throws InterruptedException {
        System.err.println("== " + label);
        GeneratorSpec spec = GeneratorSpec.defaults().withStreamFraction(streamFraction).withMaxTokens(16);
        BenchOptions.Builder options = BenchOptions.builder(target, RequestSources.generated(spec))
                .duration(recorded).warmup(warm).progress(true).requestTimeout(Duration.ofSeconds(10));
        if (mode == BenchOptions.Mode.OPEN) {
            options.openLoop(rate, 256);
        } else {
            options.closedLoop(connections);
        }
        return LoadGenerator.run(options.build());
    }

    private void print(List<BenchReport[]> rounds, BenchReport closedDirect, BenchReport closedGateway) {
        double ratio = closedGateway.throughput() / closedDirect.throughput();
        List<Double> addedP50 = new ArrayList<>();
        List<Double> addedP99 = new ArrayList<>();
        for (BenchReport[] round : rounds) {
            addedP50.add(round[1].total().p50Ms() - round[0].total().p50Ms());
            addedP99.add(round[1].total().p99Ms() - round[0].total().p99Ms());
        }
        if (json) {
            StringBuilder out = new StringBuilder("{\"rate\":").append(rate).append(",\"rounds\":[");
            for (int i = 0; i < rounds.size(); i++) {
                out.append(i == 0 ? "" : ",").append("{\"direct\":").append(rounds.get(i)[0].toJson())
                        .append(",\"gateway\":").append(rounds.get(i)[1].toJson()).append('}');
            }
            out.append(String.format("],\"medianAddedP50Ms\":%.3f,\"medianAddedP99Ms\":%.3f,\"closedDirect\":%s,"
                            + "\"closedGateway\":%s,\"throughputRatio\":%.3f}",
                    median(addedP50), median(addedP99), closedDirect.toJson(), closedGateway.toJson(), ratio));
            System.out.println(out);
            return;
        }
        System.out.printf("%nGateway overhead at %.0f requests/s (open loop, latency from intended send time), %d cores%n",
                rate, Runtime.getRuntime().availableProcessors());
        System.out.printf("                       p50 ms    p90 ms    p99 ms  p99.9 ms   errors%n");
        for (int i = 0; i < rounds.size(); i++) {
            LatencySummary d = rounds.get(i)[0].total();
            LatencySummary g = rounds.get(i)[1].total();
            row("round " + (i + 1) + " direct", d, rounds.get(i)[0].errors());
            row("round " + (i + 1) + " gateway", g, rounds.get(i)[1].errors());
            System.out.printf("%-19s %9.3f %9.3f %9.3f %9.3f%n", "round " + (i + 1) + " added", g.p50Ms() - d.p50Ms(),
                    g.p90Ms() - d.p90Ms(), g.p99Ms() - d.p99Ms(), g.p999Ms() - d.p999Ms());
        }
        System.out.printf("%nAdded by the gateway, median of %d rounds: p50 %.3f ms, p99 %.3f ms%n",
                rounds.size(), median(addedP50), median(addedP99));
        System.out.printf("Throughput, closed loop with %d connections: direct %.0f/s, via gateway %.0f/s, ratio %.2f%n",
                connections, closedDirect.throughput(), closedGateway.throughput(), ratio);
    }

    private static double median(List<Double> values) {
        return Medians.of(values.stream().mapToDouble(Double::doubleValue));
    }

    private static void row(String label, LatencySummary s, long errors) {
        System.out.printf("%-19s %9.3f %9.3f %9.3f %9.3f %8d%n", label, s.p50Ms(), s.p90Ms(), s.p99Ms(), s.p999Ms(), errors);
    }

    private Process child(String name, String... args) throws IOException {
        return LocalProcesses.cachegate(name, childJvmOpts, List.of(), args);
    }
}
