package io.cachegate.benchmarks;

import io.cachegate.config.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code cachegate bench chaos}: what the gateways' clients and the backend see while things fail. Starts a
 * {@link StressFleet} (Redis, a simulator, N gateways as separate processes), then per scripted {@link ChaosFault}
 * sends a fresh workload of bursts of identical cold requests and repeats, and reports the errors the gateways
 * caused, backend calls per distinct question, hit rate, latency and the gateways' resident memory. With
 * {@code --soak} it then holds a steady rate for that long and reports whether memory grows ({@link ChaosSoak}).
 */
@Command(name = "chaos", mixinStandardHelpOptions = true,
        description = {
            "Faults done to separate processes (Redis, simulator, N gateways) under a load of bursts of identical "
                    + "cold requests and repeats: errors the gateways caused, backend calls per distinct question, "
                    + "hit rate, p50/p99, gateway RSS, one row per fault.",
            "--soak DURATION then holds --soak-rate requests/s (40%% repeats, 20%% paraphrases, 25%% streamed) and "
                    + "samples each gateway's RSS and heap after a full GC every --sample-every: the least-squares "
                    + "slope over the last 15 minutes and whether RSS stayed within 10%%.",
            "Exit status 1 when the gateways caused client errors in the baseline, or memory grew in the soak."
        })
final class BenchChaosCommand extends Scenario {

    @Mixin
    final SimulatorOptions simulator = new SimulatorOptions(256, 300, 5);

    @Option(names = "--gateways", defaultValue = "3", description = "Gateways over the one Redis (default ${DEFAULT-VALUE}).")
    int gateways;

    @Option(names = "--faults", split = ",", defaultValue = "none,redis-stall,redis-restart,backend-slow,backend-errors,"
            + "backend-hang,cpu-starved,gateway-kill",
            description = "Faults to measure, in order (default ${DEFAULT-VALUE}).")
    List<String> faults;

    @Option(names = "--requests", defaultValue = "400", description = "Requests per fault (default ${DEFAULT-VALUE}).")
    int requests;

    @Option(names = "--repeat-share", defaultValue = "0.75",
            description = "Share of the requests that repeat an earlier one (default ${DEFAULT-VALUE}).")
    double repeatShare;

    @Option(names = "--burst", defaultValue = "6",
            description = "Copies of each distinct request sent together (default ${DEFAULT-VALUE}).")
    int burst;

    @Option(names = "--connections", defaultValue = "48", description = "Client threads (default ${DEFAULT-VALUE}).")
    int connections;

    @Option(names = "--max-tokens", defaultValue = "32", description = "Tokens of each answer: the simulator's "
            + "--default-max-tokens, the requests giving none, so answers end with finish_reason stop and are stored "
            + "(default ${DEFAULT-VALUE}).")
    int maxTokens;

    @Option(names = "--busy-processes", defaultValue = "4",
            description = "Busy processes of the cpu-starved fault (default ${DEFAULT-VALUE}).")
    int busyProcesses;

    @Option(names = "--soak", description = "After the faults, a steady load this long, e.g. 20m (default: none).")
    String soak;

    @Option(names = "--soak-rate", defaultValue = "20", description = "Soak: requests per second (default ${DEFAULT-VALUE}).")
    double soakRate;

    @Option(names = "--sample-every", defaultValue = "1m",
            description = "Soak: how often RSS and heap after GC are sampled (default ${DEFAULT-VALUE}).")
    String sampleEvery;

    /** What one fault's phase measured. */
    record Measured(ChaosFault fault, int requests, int distinct, long backendCalls, int hits, int gatewayErrors,
                    int connectionErrors, int rejected, int backendErrors, double p50Ms, double p99Ms, List<Long> rssKib,
                    Map<String, Long> errors) {
    }

    BenchChaosCommand() {
        super("chaos", new ScenarioOptions("10s", "0", 1, "-Xmx512m -XX:+UseParallelGC"));
    }

    @Override
    void check(List<String> problems) {
        try {
            faults.forEach(ChaosFault::parse);
        } catch (IllegalArgumentException e) {
            problems.add("--faults: " + e.getMessage());
        }
        if (gateways < 1 || gateways > 3) {
            problems.add("--gateways: from 1 to 3");
        }
        if (gateways < 2 && faults.stream().anyMatch(f -> "gateway-kill".equals(f.strip()))) {
            problems.add("--faults gateway-kill needs --gateways 2 or more (the clients move to the others)");
        }
        if (repeatShare < 0 || repeatShare >= 1) {
            problems.add("--repeat-share must be in [0, 1)");
        }
        if (requests < 10 || connections < 1 || burst < 1 || maxTokens < 1 || busyProcesses < 1) {
            problems.add("--requests must be >= 10; --connections, --burst, --max-tokens, --busy-processes >= 1");
        }
        if (soakRate <= 0) {
            problems.add("--soak-rate must be > 0");
        }
        for (String d : soak == null ? List.of(sampleEvery) : List.of(soak, sampleEvery)) {
            try {
                Durations.parse(d);
            } catch (IllegalArgumentException e) {
                problems.add("--soak/--sample-every: " + e.getMessage());
            }
        }
    }

    @Override
    ScenarioReport measure(BenchChildren children) throws Exception {
        String run = Long.toString(System.currentTimeMillis(), 36);
        String[] simArgs = simulatorArgs(simulator.ttftMs(), simulator.tpotMs(), "");
        // A hung call must end at the gateway (504) well within the clients' timeout.
        try (StressFleet fleet = StressFleet.start(children, gateways, List.of("timeouts: { first_byte: 3s }"),
                simArgs)) {
            progress.info("Redis on %s, simulator, %d gateways ready", fleet.redis().uri(), gateways);
            ChaosLoad load = new ChaosLoad(Duration.ofSeconds(30));
            // Warm every gateway with requests of its own (never repeated later), then measure.
            load.closedLoop(fleet.gateways(), fleet::alive, workload("warm-" + run), connections);
            List<Measured> rows = new ArrayList<>();
            for (String name : faults) {
                ChaosFault fault = ChaosFault.parse(name);
                progress.phase(fault.option + ": " + fault.description);
                rows.add(phase(fleet, load, fault, run));
            }
            ChaosSoak.Result soakResult = null;
            if (soak != null) {
                progress.phase("soak " + soak + " at " + soakRate + " requests/s");
                soakResult = new ChaosSoak(fleet, progress).run(Durations.parse(soak), soakRate,
                        Durations.parse(sampleEvery));
            }
            return new ChaosReport(this, rows, soakResult);
        }
    }

    private Measured phase(StressFleet fleet, ChaosLoad load, ChaosFault fault, String run) throws Exception {
        fault.before(fleet, this);
        int distinct = Math.max(1, (int) Math.round(requests * (1 - repeatShare)));
        List<ChaosLoad.Request> work = workload(fault.option + "-" + run);
        long calls = fleet.backendCalls();
        AtomicBoolean done = new AtomicBoolean();
        CompletableFuture<Void> script = CompletableFuture.runAsync(() -> {
            try {
                fault.during(fleet, busyProcesses, done::get);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                throw new IllegalStateException(fault.option + ": " + e.getMessage(), e);
            }
        });
        List<ChaosLoad.Answer> answers;
        try {
            answers = load.closedLoop(fleet.gateways(), fleet::alive, work, connections);
        } finally {
            done.set(true);
        }
        script.get(60, TimeUnit.SECONDS);
        fleet.awaitBackendIdle(Duration.ofSeconds(10));
        long backendCalls = fleet.backendCalls() - calls;
        List<Long> rss = new ArrayList<>();
        for (int g = 0; g < fleet.size(); g++) {
            rss.add(fleet.alive(g) ? fleet.rssKib(g) : -1);
        }
        fault.after(fleet, this);
        return measured(fault, distinct, backendCalls, answers, rss);
    }

    private Measured measured(ChaosFault fault, int distinct, long backendCalls, List<ChaosLoad.Answer> answers,
                              List<Long> rss) {
        int hits = 0;
        int[] failures = new int[ChaosLoad.Failure.values().length];
        List<Double> ok = new ArrayList<>();
        Map<String, Long> errors = new TreeMap<>();
        for (ChaosLoad.Answer a : answers) {
            failures[a.failure().ordinal()]++;
            if (a.status() != 200) {
                errors.merge(a.kind(), 1L, Long::sum);
            }
            if (a.status() == 200) {
                ok.add(a.millis());
                hits += a.xCache().startsWith("HIT") ? 1 : 0;
            }
        }
        Collections.sort(ok);
        return new Measured(fault, answers.size(), distinct, backendCalls, hits,
                failures[ChaosLoad.Failure.GATEWAY.ordinal()], failures[ChaosLoad.Failure.CONNECTION.ordinal()],
                failures[ChaosLoad.Failure.REJECTED.ordinal()], failures[ChaosLoad.Failure.BACKEND.ordinal()],
                BenchFleetCommand.percentile(ok, 0.50), BenchFleetCommand.percentile(ok, 0.99), rss, errors);
    }

    /** {@link #requests} chat requests of their own ({@code tag}): bursts of identical cold ones, then repeats. */
    private List<ChaosLoad.Request> workload(String tag) {
        int distinct = Math.max(1, (int) Math.round(requests * (1 - repeatShare)));
        return BenchFleetCommand.workload("chaos " + tag, requests, distinct, burst).stream()
                .map(body -> new ChaosLoad.Request(body, false)).toList();
    }

    /** The simulator's options with this latency, the answer length, and {@code fault} (e.g. --error-rate=0.2) if any. */
    String[] simulatorArgs(int ttftMs, double tpotMs, String fault) {
        List<String> args = new ArrayList<>(List.of("--max-concurrency", Integer.toString(simulator.maxConcurrency()),
                "--ttft-ms", Integer.toString(ttftMs), "--tpot-ms", Double.toString(tpotMs),
                "--default-max-tokens", Integer.toString(maxTokens)));
        if (!fault.isEmpty()) {
            args.add(fault);
        }
        return args.toArray(String[]::new);
    }
}
