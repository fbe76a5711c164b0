package io.cachegate.benchmarks;

import io.cachegate.bench.BenchOptions;
import io.cachegate.bench.BenchReport;
import io.cachegate.bench.LoadGenerator;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code cachegate bench prefix-affinity}: replica choice against the backends' prefix caches. Sends one
 * workload of prompts sharing long prefixes (a multi-turn trace, and inference-perf's shared-prefix shape)
 * through a gateway per balance policy, each in front of fresh simulator replicas with prefix caches, and
 * reports time to first token, the replicas' prefix hit rate and how evenly the requests were spread
 * ({@link PrefixAffinityReport}).
 */
@Command(name = "prefix-affinity", mixinStandardHelpOptions = true,
        description = {
            "Prefix-affinity routing against least_loaded and round_robin (the baseline), in one run.",
            "For each workload and each --balance policy: starts --replicas fresh simulator replicas with prefix "
                    + "caches and a gateway in front of them (cache off; admission on, its capacity per --capacity), "
                    + "warms them for --warmup with "
                    + "prompts shorter than a block, sends the workload once in file order at --rate (open loop, "
                    + "streamed, sampled), and reads each replica's /sim/stats. "
                    + "Prefill is made the dominant cost: --prefill-ms-per-token (default 0.5) on prompts of hundreds "
                    + "to thousands of words, so a cached prefix saves most of the time to first token.",
            "--duration 0s (the default) is one pass over the workload (requests / rate); longer runs repeat the "
                    + "workload, whose repeats then hit everywhere.",
            "Workloads: trace = --trace (default " + BenchPrefixAffinityCommand.DEFAULT_TRACE + ", relative to the "
                    + "working directory; skipped when missing); shared-prefix = --groups system prompts x --questions "
                    + "x --turns.",
            "Exit status 1 on any failed request."
        })
final class BenchPrefixAffinityCommand extends Scenario {

    static final String DEFAULT_TRACE = "../shared/data/sharegpt_multiturn_prefix.jsonl";
    static final String BASELINE = "round_robin";
    private static final List<String> BALANCES = List.of("kv_aware", "prefix_affinity", "least_loaded", "round_robin");

    @Option(names = "--workloads", split = ",", defaultValue = "trace,shared-prefix",
            description = "Any of trace, shared-prefix; trace is skipped when the file is missing (default ${DEFAULT-VALUE}).")
    List<String> workloads;

    @Option(names = "--trace", description = "Multi-turn trace (default " + DEFAULT_TRACE + ", relative to the working "
            + "directory).")
    Path trace;

    @Option(names = "--balance", split = ",", defaultValue = "kv_aware,prefix_affinity,least_loaded,round_robin",
            description = "Policies compared; round_robin is the baseline of the ratios (default ${DEFAULT-VALUE}).")
    List<String> balances;

    @Option(names = "--gateways", split = ",", defaultValue = "1",
            description = "Gateways in front of the same replicas, the load spread over them in turn; a list compares "
                    + "fleet sizes, e.g. 1,3 (default ${DEFAULT-VALUE}).")
    List<Integer> gateways;

    @Option(names = "--groups", defaultValue = "32", description = "shared-prefix: system prompts (default ${DEFAULT-VALUE}).")
    int groups;

    @Option(names = "--system-chars", defaultValue = "8000",
            description = "shared-prefix: characters of each system prompt (default ${DEFAULT-VALUE}).")
    int systemChars;

    @Option(names = "--questions", defaultValue = "10", description = "shared-prefix: questions per group (default ${DEFAULT-VALUE}).")
    int questions;

    @Option(names = "--turns", defaultValue = "1",
            description = "shared-prefix: user turns per question, each resending the conversation (default ${DEFAULT-VALUE}).")
    int turns;

    @Option(names = "--max-tokens", defaultValue = "32",
            description = "max_tokens (the trace's output lengths are capped at it) (default ${DEFAULT-VALUE}).")
    int maxTokens;

    @Option(names = "--rate", defaultValue = "20", description = "Requests per second, open loop (default ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--replicas", defaultValue = "4", description = "Simulator replicas (default ${DEFAULT-VALUE}).")
    int replicas;

    @Option(names = "--prefill-ms-per-token", defaultValue = "0.5",
            description = "Simulator: prefill per uncached prompt token (word) (default ${DEFAULT-VALUE}).")
    double prefillMsPerToken;

    @Option(names = "--prefix-cache-blocks", defaultValue = "512",
            description = "Simulator: KV blocks per replica, 16 tokens each (the simulator runs with --kv-events, its "
                    + "prefix cache token-exact, whatever the balance) (default ${DEFAULT-VALUE}: a few of the "
                    + "shared-prefix system prompts fit per replica, all of them do not).")
    int prefixCacheBlocks;

    @Option(names = "--shared-prefill", negatable = true, defaultValue = "false", fallbackValue = "true",
            description = "Simulator: a replica computes one prefill at a time, first come first served, as an "
                    + "engine's steps share one accelerator (simulate-backend --shared-prefill): a prefix recomputed "
                    + "delays every prompt queued behind it (default ${DEFAULT-VALUE}).")
    boolean sharedPrefill;

    @Option(names = "--capacity", defaultValue = "auto",
            description = "The gateways' max_concurrency per replica: auto (adaptive, found from time to first token, "
                    + "the policy's default) or fixed (the simulator's --max-concurrency, as an operator who knows the "
                    + "engines' max_num_seqs sets it) (default ${DEFAULT-VALUE}).")
    String capacity;

    @Option(names = "--replica-metrics", defaultValue = "false",
            description = "The gateways also read each replica's vLLM /metrics every 200 ms (backends[].metrics: its "
                    + "waiting requests and KV cache use counted in its load, the same for every gateway) "
                    + "(default ${DEFAULT-VALUE}).")
    boolean replicaMetrics;

    @Option(names = "--access-logs",
            description = "A directory for the gateways' access logs, one file per run and gateway "
                    + "(<balance>-g<n>-r<round>.log: kv_blocks, upstream times per request); none by default.")
    Path accessLogs;

    @Mixin
    final SimulatorOptions simulator = new SimulatorOptions(8, 20, 5);

    /** A balance policy with this many gateways in front of the replicas. */
    record Config(String balance, int gateways) {
        @Override
        public String toString() {
            return gateways == 1 ? balance : balance + " x" + gateways;
        }
    }

    /**
     * One workload through one fleet of gateways; for kv_aware also how far the gateways' KV index was from the
     * replicas' own count after the run (the largest relative error over gateways and replicas), the event lag p99,
     * and how long a gateway started after the run took, from its listener up, to hold 90% of the replicas' blocks;
     * for every policy the admission cost model's error against the replicas' cached-token counts.
     */
    record Run(String workload, Config config, BenchReport report, List<BenchScrapes.SimStats> replicas,
               double indexError, double eventLagP99Ms, double lateGatewayMs, double uncachedEstimateError) {

        String balance() {
            return config.balance();
        }

        double hitRate() {
            return hitRate(replicas);
        }

        static double hitRate(List<BenchScrapes.SimStats> replicas) {
            long queried = replicas.stream().mapToLong(BenchScrapes.SimStats::prefixBlocksQueried).sum();
            long hit = replicas.stream().mapToLong(BenchScrapes.SimStats::prefixBlocksHit).sum();
            return queried == 0 ? 0 : (double) hit / queried;
        }

        double maxOverMean() {
            return maxOverMean(replicas.stream().mapToLong(BenchScrapes.SimStats::requests).toArray());
        }

        /** The busiest replica's requests over the mean per replica: 1 is an even spread. */
        static double maxOverMean(long[] requests) {
            long total = 0;
            long max = 0;
            for (long r : requests) {
                total += r;
                max = Math.max(max, r);
            }
            return total == 0 ? 0 : max / ((double) total / requests.length);
        }
    }

    BenchPrefixAffinityCommand() {
        super("prefix-affinity", new ScenarioOptions("0s", "2s", 1, "-Xmx512m -XX:+UseParallelGC"));
    }

    @Override
    void check(List<String> problems) {
        for (String b : balances) {
            if (!BALANCES.contains(b)) {
                problems.add("--balance: unknown policy \"" + b + "\"");
            }
        }
        for (String w : workloads) {
            if (!List.of("trace", "shared-prefix").contains(w)) {
                problems.add("--workloads: unknown workload \"" + w + "\"");
            }
        }
        if (gateways.isEmpty() || gateways.stream().anyMatch(g -> g < 1 || g > 8)) {
            problems.add("--gateways: each between 1 and 8");
        }
        if (!List.of("auto", "fixed").contains(capacity)) {
            problems.add("--capacity: auto or fixed, was \"" + capacity + "\"");
        }
        if (replicas < 1 || !(rate > 0)) {
            problems.add("--replicas and --rate must be positive");
        }
        if (trace != null && !Files.isReadable(trace)) {
            problems.add("--trace: cannot read " + trace);
        }
    }

    @Override
    ScenarioReport measure(BenchChildren children) throws Exception {
        List<PrefixWorkloads.Workload> sets = new ArrayList<>();
        for (String w : workloads) {
            if (w.equals("shared-prefix")) {
                sets.add(PrefixWorkloads.sharedPrefix(groups, systemChars, questions, turns, maxTokens,
                        ChatRequests.MODEL, 42));
            } else if (Files.isReadable(trace())) {
                sets.add(PrefixWorkloads.trace(trace(), ChatRequests.MODEL, maxTokens));
            } else {
                progress.info("skipping the trace workload: %s does not exist", trace().toAbsolutePath().normalize());
            }
        }
        if (sets.isEmpty()) {
            throw new Aborted("no workload to run");
        }
        HttpClient http = BenchScrapes.client();
        List<Run> runs = new ArrayList<>();
        for (PrefixWorkloads.Workload w : sets) {
            progress.info("workload %s: %s", w.name(), w.description());
            List<Config> configs = new ArrayList<>();
            for (int g : gateways) {
                balances.forEach(b -> configs.add(new Config(b, g)));
            }
            for (Map.Entry<Config, List<Run>> e : alternating(configs, (r, c) -> run(children, http, w, c, r)).entrySet()) {
                runs.addAll(e.getValue());
            }
        }
        return new PrefixAffinityReport(this, sets, runs);
    }

    private Path trace() {
        return trace != null ? trace : Path.of(DEFAULT_TRACE);
    }

    private Run run(BenchChildren children, HttpClient http, PrefixWorkloads.Workload w, Config config, int round)
            throws Exception {
        String balance = config.balance();
        List<String> simArgs = new ArrayList<>(simulator.args());
        simArgs.addAll(List.of("--prefill-ms-per-token", Double.toString(prefillMsPerToken),
                "--prefix-cache-blocks", Integer.toString(prefixCacheBlocks), "--kv-events",
                "--kv-events-port", Integer.toString(LocalProcesses.freePorts(2 * replicas))));
        if (sharedPrefill) {
            simArgs.add("--shared-prefill");
        }
        ChildSimulator sim = children.simulator("sim-" + balance, replicas, simArgs.toArray(String[]::new)).awaitReady();
        GatewayPolicy policy = GatewayPolicy.of(options.gatewayThreads(), sim).pinModelVersion()
                .backend("balance: " + balance).route("*", "cache: { exact: false }");
        if (capacity.equals("fixed")) {
            // The adaptive limit takes a long uncached prefill for queueing and lowers the hashed or holding
            // replica's limit, so requests spill to replicas without their prefix: fixed, locality is the policy's.
            policy = policy.backend("max_concurrency: " + simulator.maxConcurrency());
        }
        if (replicaMetrics) {
            policy = policy.backend("metrics: true", "health: { interval: 200ms }");
        }
        if (balance.equals("kv_aware")) {
            List<String> endpoints = new ArrayList<>();
            for (URI replica : sim.uris()) {
                endpoints.add("\"" + BenchScrapes.kvEventsEndpoint(http, replica) + "\"");
            }
            policy = policy.backend("kv_events: [" + String.join(", ", endpoints) + "]", "tokenizer: bundled");
        }
        if (accessLogs != null) {
            Files.createDirectories(accessLogs);
        }
        List<ChildGateway> fleet = new ArrayList<>();
        try {
            for (int g = 0; g < config.gateways(); g++) {
                GatewayPolicy own = accessLogs == null ? policy : policy.log("log: { access: file, file: \""
                        + accessLogs.toAbsolutePath().resolve(balance + "-g" + g + "-r" + round + ".log") + "\" }");
                fleet.add(children.gateway(balance + (g == 0 ? "" : "-" + g), List.of(), own));
            }
            for (ChildGateway gw : fleet) {
                LocalProcesses.awaitPort(gw.uri().getPort());
            }
            ChildGateway gateway = fleet.get(0);
            List<URI> others = fleet.stream().skip(1).map(ChildGateway::uri).toList();
            Duration fixed = options.duration();
            Duration recorded = fixed.isZero()
                    ? Duration.ofNanos((long) Math.ceil((w.bodies().size() - 0.5) / rate * 1e9)) : fixed;
            progress.info("== round %d: %s, balance %s, %d gateway(s), %d requests at %.1f/s", round, w.name(), balance,
                    config.gateways(), Math.round(recorded.toNanos() / 1e9 * rate), rate);
            // A short unrecorded warm-up of the fresh JVMs with prompts shorter than one block (nothing enters a
            // prefix cache); the replicas' counters are read before and after the measured pass.
            LoadGenerator.run(BenchOptions.builder(gateway.uri(), ChatRequests.inOrder(List.of(warmUp()), true))
                    .alsoTargets(others).closedLoop(2 * fleet.size()).duration(options.warmup())
                    .warmup(Duration.ZERO).progress(false).build());
            List<BenchScrapes.SimStats> before = new ArrayList<>();
            for (URI replica : sim.uris()) {
                before.add(BenchScrapes.simStats(http, replica));
            }
            int connections = (int) Math.min(4000, Math.ceil(rate * 30) + 16);
            BenchReport report = LoadGenerator.run(BenchOptions.builder(gateway.uri(),
                            ChatRequests.inOrder(w.bodies(), true))
                    .alsoTargets(others).openLoop(rate, connections).duration(recorded).warmup(Duration.ZERO)
                    .requestTimeout(Duration.ofSeconds(30)).progress(false).build());
            List<BenchScrapes.SimStats> stats = new ArrayList<>();
            for (int i = 0; i < replicas; i++) {
                stats.add(minus(BenchScrapes.simStats(http, sim.uri(i)), before.get(i)));
            }
            double indexError = Double.NaN;
            double lag = Double.NaN;
            double lateMs = Double.NaN;
            double estimateError = KvIndexAccuracy.uncachedEstimateError(http, fleet);
            if (balance.equals("kv_aware")) {
                indexError = 0;
                lag = 0;
                for (ChildGateway gw : fleet) {
                    KvIndexAccuracy accuracy = KvIndexAccuracy.read(http, gw, sim);
                    indexError = Math.max(indexError, accuracy.largestError());
                    lag = Math.max(lag, accuracy.lagP99Ms());
                }
                ChildGateway late = children.gateway(balance + "-late", List.of(), policy);
                fleet.add(late);
                lateMs = KvIndexAccuracy.lateGatewayMillis(http, late, sim);
            }
            Run run = new Run(w.name(), config, report, stats, indexError, lag, lateMs, estimateError);
            progress.info("TTFT mean %.1f ms, p90 %.1f ms; cached prompt share %.3f; requests per replica %s; "
                            + "index error %.3f; event lag p99 %.1f ms; a late gateway at 90%% after %.0f ms; uncached tokens "
                            + "estimate error %.3f; errors %s",
                    report.firstByte().meanMs(), report.firstByte().p90Ms(), run.hitRate(),
                    stats.stream().map(s -> Long.toString(s.requests())).toList(), indexError, lag, lateMs,
                    estimateError, report.errorsByKind());
            return run;
        } finally {
            for (ChildGateway gw : fleet) {
                children.stop(gw.process());
            }
            children.stop(sim.process());
        }
    }

    /** What happened between two reads of a replica's counters (the gauges are the later read's). */
    static BenchScrapes.SimStats minus(BenchScrapes.SimStats after, BenchScrapes.SimStats before) {
        return new BenchScrapes.SimStats(after.requests() - before.requests(), after.completed() - before.completed(),
                after.cancelled() - before.cancelled(), after.errors() - before.errors(), after.active(), after.queued(),
                after.prefixBlocksQueried() - before.prefixBlocksQueried(),
                after.prefixBlocksHit() - before.prefixBlocksHit(), after.prefixHitRequests() - before.prefixHitRequests());
    }

    /** The warm-up request: shorter than one prefix block. */
    private static byte[] warmUp() {
        var body = BenchJson.object().put("model", ChatRequests.MODEL).put("temperature", 0.7).put("max_tokens", 4)
                .put("stream", true);
        body.putArray("messages").addObject().put("role", "user").put("content", "warm-up");
        return BenchJson.bytes(body);
    }
}
