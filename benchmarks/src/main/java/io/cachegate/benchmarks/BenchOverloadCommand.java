package io.cachegate.benchmarks;

import io.cachegate.bench.BenchReport;
import io.cachegate.config.Durations;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code cachegate bench overload}: admission control under three times the backend's capacity. Starts
 * a simulator with a concurrency limit, a gateway with admission on and one with admission off (plain
 * proxying), and in alternating rounds measures interactive traffic alone (the unloaded baseline), then
 * interactive plus batch ({@code X-Priority: batch}) through each gateway ({@link OverloadPhase}). Reports
 * interactive time to first token against the baseline, batch goodput, how fast rejections come back, queue
 * depths and the gateway's resident memory ({@link OverloadReport}).
 */
@Command(name = "overload", mixinStandardHelpOptions = true,
        description = {
            "Admission control at 3x the backend's capacity C, against the same gateway with admission off "
                    + "(plain proxying) at the same offered load, and against interactive traffic alone (unloaded).",
            "C = --max-concurrency / (ttft + (max-tokens - 1) x tpot) requests/s of one simulator replica (the "
                    + "gateway's max_concurrency is --max-concurrency too). Offered: "
                    + "interactive at --interactive-load x C plus batch (X-Priority: batch) at --batch-load x C, "
                    + "streamed, sampled (temperature 0.7, cache off), open loop. A --probe-share of each class is "
                    + "sent by a probe that keeps every answer's latency, for the latency of the 429s.",
            "Each round runs unloaded, admission on and admission off (the last two alternating in order); "
                    + "--warmup is the unrecorded start of each phase.",
            "Exit status 1 on unexpected errors: connection errors, 5xx other than 503, timeouts with admission "
                    + "on, or load-generator backlog.",
            "--scenario noisy-tenant measures fair shares between tenants instead, --scenario outage a backend "
                    + "outage with stale answers (see --scenario)."
        })
final class BenchOverloadCommand extends Scenario {

    static final String MODEL = ChatRequests.MODEL;
    /** Batch requests name their own model id, served alike, so the gateway's per-route counters split the classes. */
    static final String BATCH_MODEL = "llama-3.1-8b-batch";
    /** Error kinds that are the expected outcome of overload; timeouts only without admission. */
    private static final Set<String> EXPECTED = Set.of("http_429", "http_503");
    private static final Set<String> EXPECTED_WITHOUT_ADMISSION = Set.of("http_429", "http_503", "timeout",
            "unfinished");
    private static final Pattern LABEL = Pattern.compile("(?:^|,)(\\w+)=\"([^\"]*)\"");

    @Mixin
    final SimulatorOptions simulator = new SimulatorOptions(8, 100, 10);

    @Option(names = "--max-tokens", defaultValue = "16", description = "max_tokens of every request (default ${DEFAULT-VALUE}).")
    int maxTokens;

    @Option(names = "--interactive-load", defaultValue = "0.5",
            description = "Interactive rate as a multiple of C (default ${DEFAULT-VALUE}).")
    double interactiveLoad;

    @Option(names = "--batch-load", defaultValue = "2.5",
            description = "Batch rate as a multiple of C (default ${DEFAULT-VALUE}: 3 x C offered in all).")
    double batchLoad;

    @Option(names = "--interactive-max-queue-time", defaultValue = "2s",
            description = "classes.interactive.max_queue_time (default ${DEFAULT-VALUE}).")
    String interactiveMaxQueue;

    @Option(names = "--batch-max-queue-time", defaultValue = "10s",
            description = "classes.batch.max_queue_time (default ${DEFAULT-VALUE}).")
    String batchMaxQueue;

    @Option(names = "--batch-max-inflight-share", defaultValue = "0.5",
            description = "classes.batch.max_inflight_share: the share of the backend's slots batch may hold, so "
                    + "interactive requests find one free instead of waiting for a batch request to end "
                    + "(default ${DEFAULT-VALUE}).")
    double batchMaxInflightShare;

    @Option(names = "--capacity", defaultValue = "fixed",
            description = "fixed: the gateway's max_concurrency is --max-concurrency; auto: none is configured and "
                    + "each replica's limit is found from its time to first token (default ${DEFAULT-VALUE}).")
    String capacityMode;

    @Option(names = "--probe-share", defaultValue = "0.1",
            description = "Share of each class's requests sent by the latency-per-status probe (default ${DEFAULT-VALUE}).")
    double probeShare;

    @Option(names = "--scenario", defaultValue = "classes",
            description = "classes: interactive and batch at 3 x C (above); noisy-tenant: tenants a, b and c of one "
                    + "class in closed loops, a with --noisy-clients clients and b and c with one each, through a "
                    + "gateway in fair order and one first come first served (admission.fair_share), and b and c "
                    + "alone; outage: --rate requests/s in an open loop, half repeats of --entries cached entries whose "
                    + "ttl ends half way through the outage (stale_if_error covers the rest of the run), half new "
                    + "prompts, the simulator SIGKILLed after --lead and restarted on its port after --outage; answers "
                    + "per second (fresh hit, stale, generated) and errors, and the simulator's calls after the "
                    + "restart (default ${DEFAULT-VALUE}).")
    String scenario;

    @Option(names = "--outage", defaultValue = "60s", description = "outage: how long the simulator is down "
            + "(default ${DEFAULT-VALUE}).")
    String outage;

    @Option(names = "--lead", defaultValue = "5s", description = "outage: steady load before the simulator is killed "
            + "(default ${DEFAULT-VALUE}).")
    String lead;

    @Option(names = "--recovery", defaultValue = "15s", description = "outage: steady load after the simulator is "
            + "back; shorter than the entries' ttl (--lead + --outage / 2), so each is refreshed once "
            + "(default ${DEFAULT-VALUE}).")
    String recovery;

    @Option(names = "--rate", defaultValue = "20", description = "outage: requests a second, open loop "
            + "(default ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--entries", defaultValue = "40", description = "outage: the cached entries repeated in turn "
            + "(default ${DEFAULT-VALUE}).")
    int entries;

    @Option(names = "--noisy-clients", defaultValue = "10",
            description = "noisy-tenant: the clients of tenant a (default ${DEFAULT-VALUE}).")
    int noisyClients;

    @Option(names = "--timeout", defaultValue = "12s",
            description = "Client request timeout; keep it above the batch max queue time (default ${DEFAULT-VALUE}).")
    String timeout;

    BenchOverloadCommand() {
        super("overload", new ScenarioOptions("15s", "3s", 2, ScenarioOptions.CHILD_JVM_OPTS));
    }

    @Override
    void check(List<String> problems) {
        if (simulator.maxConcurrency() < 1 || maxTokens < 1 || !(probeShare >= 0 && probeShare < 1) || interactiveLoad <= 0
                || batchLoad < 0 || !(batchMaxInflightShare > 0 && batchMaxInflightShare <= 1)
                || !(capacityMode.equals("fixed") || capacityMode.equals("auto"))
                || !(scenario.equals("classes") || scenario.equals("noisy-tenant") || scenario.equals("outage"))
                || noisyClients < 1 || !(rate > 0) || entries < 1) {
            problems.add("--max-concurrency, --max-tokens and --interactive-load must be positive, --batch-load >= 0, "
                    + "--probe-share in [0, 1), --batch-max-inflight-share in (0, 1], --capacity fixed or auto, "
                    + "--scenario classes, noisy-tenant or outage, --noisy-clients >= 1, --rate > 0, --entries >= 1");
        }
        for (String[] d : new String[][] {{"--timeout", timeout}, {"--interactive-max-queue-time", interactiveMaxQueue},
            {"--batch-max-queue-time", batchMaxQueue}, {"--outage", outage}, {"--lead", lead},
            {"--recovery", recovery}}) {
            try {
                Durations.parse(d[1]);
            } catch (IllegalArgumentException e) {
                problems.add(d[0] + ": " + e.getMessage());
            }
        }
        if (scenario.equals("outage") && problems.isEmpty() && Durations.parse(recovery).toMillis()
                >= 1000 * OutageScenario.ttlSeconds(Durations.parse(lead), Durations.parse(outage))) {
            problems.add("--recovery must be shorter than the entries' ttl (--lead + --outage / 2): a refreshed entry "
                    + "that expires again is refreshed again");
        }
    }

    @Override
    ScenarioReport measure(BenchChildren children) throws Exception {
        return switch (scenario) {
            case "noisy-tenant" -> noisyTenant(children);
            case "outage" -> new OutageScenario(simulator, progress, options.gatewayThreads(), rate, entries,
                    Durations.parse(lead), Durations.parse(outage), Durations.parse(recovery),
                    Durations.parse(timeout)).run(children);
            default -> classes(children);
        };
    }

    /**
     * Tenant a with {@link #noisyClients} clients, b and c with one each, one class, closed loops, through a gateway
     * in fair order and one first come first served, alternating; b and c alone first in every round.
     */
    private ScenarioReport noisyTenant(BenchChildren children) throws Exception {
        Duration recorded = options.duration();
        Duration warm = options.warmup();
        double capacity = capacity(simulator.maxConcurrency(), simulator.ttftMs(), simulator.tpotMs(), maxTokens);
        List<String> simArgs = new ArrayList<>(simulator.args());
        simArgs.addAll(List.of("--max-queue", "100000", "--models", MODEL));
        ChildSimulator sim = children.simulator("sim", 1, simArgs.toArray(String[]::new));
        Map<String, ChildGateway> gateways = new LinkedHashMap<>();
        for (boolean fair : new boolean[] {true, false}) {
            String name = fair ? NoisyTenantReport.FAIR : NoisyTenantReport.FIFO;
            gateways.put(name, children.gateway(name, List.of(), tenantsPolicy(sim, fair)));
        }
        sim.awaitReady();
        for (ChildGateway g : gateways.values()) {
            g.awaitReady();
        }
        List<NoisyTenants.Tenant> all = List.of(new NoisyTenants.Tenant("a", "key-a", noisyClients),
                new NoisyTenants.Tenant("b", "key-b", 1), new NoisyTenants.Tenant("c", "key-c", 1));
        progress.info("simulator %s: C = %.1f requests/s; tenant a %d clients, b and c one each, closed loops",
                sim.uri(), capacity, noisyClients);
        NoisyTenants load = new NoisyTenants(BenchScrapes.client(), maxTokens, Durations.parse(timeout));
        for (ChildGateway g : gateways.values()) {
            progress.info("warm-up, %s (not recorded)", g.name());
            load.run(g.uri(), all, Duration.ZERO, warm.plusSeconds(2));
        }
        List<Map<String, Map<String, NoisyTenants.Served>>> rounds = new ArrayList<>();
        for (int r = 1; r <= options.rounds(); r++) {
            Map<String, Map<String, NoisyTenants.Served>> round = new LinkedHashMap<>();
            progress.info("round %d: b and c alone", r);
            round.put(NoisyTenantReport.ALONE, load.run(gateways.get(NoisyTenantReport.FAIR).uri(), all.subList(1, 3),
                    warm, recorded));
            List<String> order = r % 2 == 1 ? List.of(NoisyTenantReport.FAIR, NoisyTenantReport.FIFO)
                    : List.of(NoisyTenantReport.FIFO, NoisyTenantReport.FAIR);
            for (String phase : order) {
                progress.info("round %d: a, b and c, %s", r, phase);
                round.put(phase, load.run(gateways.get(phase).uri(), all, warm, recorded));
            }
            rounds.add(round);
        }
        return new NoisyTenantReport(rounds, "a", List.of("b", "c"), recorded.toNanos() / 1e9, capacity);
    }

    private GatewayPolicy tenantsPolicy(ChildSimulator sim, boolean fair) {
        long drain = Math.max(1, Math.round(capacity(simulator.maxConcurrency(), simulator.ttftMs(),
                simulator.tpotMs(), maxTokens) * (20 + maxTokens)));
        return GatewayPolicy.of(options.gatewayThreads(), sim)
                .pinModelVersion().connectionsPerUrl(1024)
                .backend("max_concurrency: " + simulator.maxConcurrency(), "balance: least_loaded")
                .section("""
                        tenants:
                          - { id: a, api_keys: [key-a] }
                          - { id: b, api_keys: [key-b] }
                          - { id: c, api_keys: [key-c] }
                        classes:
                          interactive: { priority: 0, max_queue_time: 60s }
                        admission:
                          enabled: true
                          fair_share: %b
                          initial_drain_rate: %d
                        """.formatted(fair, drain))
                .route("*", "class: interactive", "cache: { exact: false }");
    }

    private ScenarioReport classes(BenchChildren children) throws Exception {
        Duration recorded = options.duration();
        Duration warm = options.warmup();
        Duration requestTimeout = Durations.parse(timeout);
        double capacity = capacity(simulator.maxConcurrency(), simulator.ttftMs(), simulator.tpotMs(), maxTokens);
        double interactiveRate = interactiveLoad * capacity;
        double batchRate = batchLoad * capacity;
        List<String> simArgs = new ArrayList<>(simulator.args());
        simArgs.addAll(List.of("--max-queue", "100000", "--models", MODEL + "," + BATCH_MODEL));
        ChildSimulator sim = children.simulator("sim", 1, simArgs.toArray(String[]::new));
        List<OverloadPhase.Target> gateways = new ArrayList<>();
        for (boolean admission : new boolean[] {true, false}) {
            gateways.add(new OverloadPhase.Target(children.gateway(admission ? "admission-on" : "admission-off",
                    List.of(), policy(sim, admission, capacity)), admission));
        }
        sim.awaitReady();
        for (OverloadPhase.Target g : gateways) {
            g.gateway().awaitReady();
        }
        progress.info("simulator %s: C = %.1f requests/s (%d at once, %.0f ms each); interactive %.1f/s, batch %.1f/s",
                sim.uri(), capacity, simulator.maxConcurrency(), 1000 * simulator.maxConcurrency() / capacity, interactiveRate, batchRate);
        HttpClient http = BenchScrapes.client();
        OverloadPhase phases = new OverloadPhase(http, sim.uri(), progress, probeShare, maxTokens, requestTimeout);
        OverloadPhase.Target on = gateways.get(0);
        // JIT and connection pools warm in both gateways and the simulator before anything is recorded.
        for (OverloadPhase.Target g : gateways) {
            phases.run("warm-up, " + g.name() + " (not recorded)", g, interactiveRate, 0, warm.plusSeconds(2),
                    Duration.ZERO);
        }
        List<Map<String, OverloadPhase.Phase>> results = new ArrayList<>();
        for (int r = 1; r <= options.rounds(); r++) {
            Map<String, OverloadPhase.Phase> round = new LinkedHashMap<>();
            round.put("unloaded", phases.run("round " + r + ": unloaded (interactive alone, admission on)", on,
                    interactiveRate, 0, recorded, warm));
            for (OverloadPhase.Target g : rotated(gateways, r - 1)) {
                round.put(g.name(), phases.run("round " + r + ": overload, " + g.name(), g, interactiveRate, batchRate,
                        recorded, warm));
            }
            results.add(round);
        }
        return new OverloadReport(this, results, capacity, interactiveRate, batchRate, recorded.toNanos() / 1e9,
                children.log("*"));
    }

    /** Requests per second one replica completes: {@code concurrency} sequences, each taking its whole answer time. */
    static double capacity(int concurrency, int ttftMs, double tpotMs, int maxTokens) {
        double seconds = (ttftMs + (maxTokens - 1) * tpotMs) / 1000.0;
        return concurrency / seconds;
    }

    /** The error kinds of {@code report} that overload does not explain. */
    static long unexpected(BenchReport report, boolean admission) {
        Set<String> expected = admission ? EXPECTED : EXPECTED_WITHOUT_ADMISSION;
        return report.errorsByKind().entrySet().stream().filter(e -> !expected.contains(e.getKey()))
                .mapToLong(Map.Entry::getValue).sum();
    }

    static long unexpected(StatusProbe.Result probe, boolean admission) {
        long failures = probe.failures().entrySet().stream()
                .filter(e -> !(admission ? Set.<String>of() : Set.of("timeout")).contains(e.getKey()))
                .mapToLong(Map.Entry::getValue).sum();
        long statuses = probe.micros().entrySet().stream()
                .filter(e -> e.getKey() >= 300 && e.getKey() != 429 && e.getKey() != 503)
                .mapToLong(e -> e.getValue().length).sum();
        return failures + statuses;
    }

    /**
     * The most requests that can be waiting when none waits longer than its class's max queue time
     * (Little's law with the wait at its limit): what "bounded" means for the admission queues.
     */
    static double queueBound(double interactiveRate, Duration interactiveMax, double batchRate, Duration batchMax) {
        return interactiveRate * interactiveMax.toNanos() / 1e9 + batchRate * batchMax.toNanos() / 1e9;
    }

    /** The value of label {@code name} in a sample's label set ({@code a="x",b="y"}), empty when absent. */
    static String label(String labels, String name) {
        Matcher m = LABEL.matcher(labels);
        while (m.find()) {
            if (m.group(1).equals(name)) {
                return m.group(2);
            }
        }
        return "";
    }

    private GatewayPolicy policy(ChildSimulator sim, boolean admission, double capacity) {
        // The drain rate the controller assumes before it has measured one: C requests/s at their token cost
        // (the gateway's estimate, prompt plus max_tokens, about 20 + max_tokens here).
        long drain = Math.max(1, Math.round(capacity * (20 + maxTokens)));
        String[] route = {"class: interactive", "cache: { exact: false }"};
        return GatewayPolicy.of(options.gatewayThreads(), sim)
                // One load generator stands for many clients: with admission off, ~1,000 requests wait at once (96/s
                // for ~11 s), and the per-address cap (1,000 by default) closed the connections beyond it at accept,
                // which the phase counted as premature closes. The comparison is of queueing, not of that cap.
                .server("max_connections_per_address: 100000")
                .pinModelVersion().connectionsPerUrl(1024)
                .backend(capacityMode.equals("auto") ? "max_concurrency: auto"
                        : "max_concurrency: " + simulator.maxConcurrency(), "balance: least_loaded")
                .section("""
                        classes:
                          interactive: { priority: 0, max_queue_time: %s }
                          batch: { priority: 2, max_queue_time: %s, pausable: true, share: 0.1, max_inflight_share: %s }
                        admission:
                          enabled: %b
                          initial_drain_rate: %d
                        """.formatted(interactiveMaxQueue, batchMaxQueue, batchMaxInflightShare, admission, drain))
                .route(BATCH_MODEL, route).route("*", route);
    }
}
