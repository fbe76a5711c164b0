package io.cachegate.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.cachegate.bench.BenchOptions;
import io.cachegate.bench.BenchReport;
import io.cachegate.bench.BenchRequest;
import io.cachegate.bench.LoadGenerator;
import io.cachegate.bench.RequestSource;
import io.cachegate.config.Durations;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cachegate bench prefix-affinity}: replica choice against the backends' prefix caches. Sends one
 * workload of prompts sharing long prefixes (a multi-turn trace, and inference-perf's shared-prefix shape)
 * through a gateway per balance policy, each in front of fresh simulator replicas with prefix caches, and
 * reports time to first token, the replicas' prefix hit rate and how evenly the requests were spread.
 */
@Command(name = "prefix-affinity", mixinStandardHelpOptions = true,
        description = {
            "Prefix-affinity routing against least_loaded and round_robin (the baseline), in one run.",
            "For each workload and each --balance policy: starts --replicas fresh simulator replicas with prefix "
                    + "caches and a gateway in front of them (admission off, cache off), sends the workload once "
                    + "in file order at --rate (open loop, streamed, sampled), and reads each replica's /sim/stats. "
                    + "Prefill is made the dominant cost: --prefill-ms-per-token (default 0.5) on prompts of hundreds "
                    + "to thousands of words, so a cached prefix saves most of the time to first token.",
            "Workloads: trace = /work/shared/data/sharegpt_multiturn_prefix.jsonl (or --trace) when it exists; "
                    + "shared-prefix = --groups system prompts x --questions x --turns.",
            "Exit status 1 on any failed request."
        })
final class BenchPrefixAffinityCommand implements Callable<Integer> {

    private static final String PATH = "/v1/chat/completions";
    private static final String MODEL = "llama-3.1-8b";
    private static final Path DEFAULT_TRACE = Path.of("/work/shared/data/sharegpt_multiturn_prefix.jsonl");
    private static final String BASELINE = "round_robin";
    private static final byte[] WARM_UP = ("{\"model\":\"" + MODEL + "\",\"temperature\":0.7,\"max_tokens\":4,"
            + "\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"warm-up\"}]}")
            .getBytes(java.nio.charset.StandardCharsets.UTF_8);

    @Option(names = "--workloads", split = ",", defaultValue = "trace,shared-prefix",
            description = "Any of trace, shared-prefix; trace is skipped when the file is missing (default ${DEFAULT-VALUE}).")
    List<String> workloads;

    @Option(names = "--trace", description = "Multi-turn trace (default " + "/work/shared/data/sharegpt_multiturn_prefix.jsonl).")
    Path trace;

    @Option(names = "--balance", split = ",", defaultValue = "prefix_affinity,least_loaded,round_robin",
            description = "Policies compared; round_robin is the baseline of the ratios (default ${DEFAULT-VALUE}).")
    List<String> balances;

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

    @Option(names = "--duration", defaultValue = "0s",
            description = "Recorded time per workload and policy; 0s = one pass over the workload (requests / rate) "
                    + "(default ${DEFAULT-VALUE}). Longer runs repeat the workload, whose repeats then hit everywhere.")
    String duration;

    @Option(names = "--replicas", defaultValue = "4", description = "Simulator replicas (default ${DEFAULT-VALUE}).")
    int replicas;

    @Option(names = "--max-concurrency", defaultValue = "8",
            description = "Simulator: sequences per replica at once (default ${DEFAULT-VALUE}).")
    int maxConcurrency;

    @Option(names = "--prefill-ms-per-token", defaultValue = "0.5",
            description = "Simulator: prefill per uncached prompt token (word) (default ${DEFAULT-VALUE}).")
    double prefillMsPerToken;

    @Option(names = "--ttft-ms", defaultValue = "20", description = "Simulator: fixed time to first token (default ${DEFAULT-VALUE}).")
    int ttftMs;

    @Option(names = "--tpot-ms", defaultValue = "5", description = "Simulator: time per output token (default ${DEFAULT-VALUE}).")
    double tpotMs;

    @Option(names = "--prefix-cache-blocks", defaultValue = "512",
            description = "Simulator: prefix-cache blocks per replica, 256 chars each (default ${DEFAULT-VALUE}: "
                    + "a quarter of the shared-prefix system prompts fit, all of them do not).")
    int prefixCacheBlocks;

    @Option(names = "--rounds", defaultValue = "1",
            description = "Rounds; each runs every policy, in a rotating order; medians are reported (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--gateway-threads", defaultValue = "0",
            description = "Gateway event loop threads; 0 = one per core (default ${DEFAULT-VALUE}).")
    int gatewayThreads;

    @Option(names = "--child-jvm-opts", defaultValue = "-Xmx512m -XX:+UseParallelGC",
            description = "JVM options of the simulator and gateways (default ${DEFAULT-VALUE}).")
    String childJvmOpts;

    @Option(names = "--json", description = "Print the result as JSON.")
    boolean json;

    /** One workload through one gateway. */
    record Run(String workload, String balance, BenchReport report, List<BenchScrapes.SimStats> replicas) {

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

    @Override
    public Integer call() throws Exception {
        for (String b : balances) {
            if (!List.of("prefix_affinity", "least_loaded", "round_robin").contains(b)) {
                throw new IllegalArgumentException("--balance: unknown policy \"" + b + "\"");
            }
        }
        if (rounds < 1 || replicas < 1 || !(rate > 0)) {
            throw new IllegalArgumentException("--rounds, --replicas and --rate must be positive");
        }
        List<PrefixWorkloads.Workload> sets = new ArrayList<>();
        for (String w : workloads) {
            switch (w) {
                case "trace" -> {
                    Path file = trace != null ? trace : DEFAULT_TRACE;
                    if (Files.isReadable(file)) {
                        sets.add(PrefixWorkloads.trace(file, MODEL, maxTokens));
                    } else if (trace != null) {
                        throw new IllegalArgumentException("--trace: cannot read " + file);
                    } else {
                        info("skipping the trace workload: %s does not exist", file);
                    }
                }
                case "shared-prefix" -> sets.add(PrefixWorkloads.sharedPrefix(groups, systemChars, questions, turns,
                        maxTokens, MODEL, 42));
                default -> throw new IllegalArgumentException("--workloads: unknown workload \"" + w + "\"");
            }
        }
        if (sets.isEmpty()) {
            throw new IllegalArgumentException("no workload to run");
        }
        Duration fixed = Durations.parse(duration.equals("0") ? "0s" : duration);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        List<Run> runs = new ArrayList<>();
        try (BenchChildren children = new BenchChildren("prefix", childJvmOpts)) {
            for (PrefixWorkloads.Workload w : sets) {
                info("workload %s: %s", w.name(), w.description());
                for (int r = 0; r < rounds; r++) {
                    for (int i = 0; i < balances.size(); i++) {
                        String balance = balances.get((i + r) % balances.size());
                        runs.add(run(children, http, w, balance, fixed, r + 1));
                    }
                }
            }
        }
        Summary summary = new Summary(sets, runs);
        if (json) {
            System.out.println(summary.toJson());
        } else {
            summary.print();
        }
        long errors = runs.stream().mapToLong(r -> r.report().errors()).sum();
        if (errors > 0) {
            System.err.printf("FAILED: %d requests failed (see the error kinds above)%n", errors);
        }
        return errors == 0 ? 0 : 1;
    }

    private Run run(BenchChildren children, HttpClient http, PrefixWorkloads.Workload w, String balance,
                    Duration fixed, int round) throws Exception {
        int simPort = freePorts(replicas);
        Process sim = children.start("sim-" + balance, "simulate-backend", "--port", Integer.toString(simPort),
                "--replicas", Integer.toString(replicas), "--max-concurrency", Integer.toString(maxConcurrency),
                "--ttft-ms", Integer.toString(ttftMs), "--tpot-ms", Double.toString(tpotMs),
                "--prefill-ms-per-token", Double.toString(prefillMsPerToken),
                "--prefix-cache-blocks", Integer.toString(prefixCacheBlocks), "--prefix-block-chars", "256");
        for (int i = 0; i < replicas; i++) {
            LocalProcesses.awaitPort(simPort + i);
        }
        int port = LocalProcesses.freePort();
        int admin = LocalProcesses.freePort();
        Path policy = children.dir().resolve("policy-" + balance + ".yaml");
        Files.writeString(policy, policy(port, admin, simPort, balance));
        Process gateway = children.start("gateway-" + balance, "serve", "--config", policy.toString());
        try {
            LocalProcesses.awaitPort(port);
            URI target = URI.create("http://127.0.0.1:" + port);
            Duration recorded = fixed.isZero()
                    ? Duration.ofNanos((long) Math.ceil((w.bodies().size() - 0.5) / rate * 1e9)) : fixed;
            info("== round %d: %s, balance %s, %d requests at %.1f/s", round, w.name(), balance,
                    Math.round(recorded.toNanos() / 1e9 * rate), rate);
            // A short unrecorded warm-up of the fresh JVMs with prompts shorter than one block (nothing enters a
            // prefix cache); the replicas' counters are read before and after the measured pass.
            LoadGenerator.run(BenchOptions.builder(target, inOrder(List.of(WARM_UP))).closedLoop(2)
                    .duration(Duration.ofSeconds(2)).warmup(Duration.ZERO).progress(false).build());
            List<BenchScrapes.SimStats> before = new ArrayList<>();
            for (int i = 0; i < replicas; i++) {
                before.add(BenchScrapes.simStats(http, URI.create("http://127.0.0.1:" + (simPort + i))));
            }
            int connections = (int) Math.min(4000, Math.ceil(rate * 30) + 16);
            BenchReport report = LoadGenerator.run(BenchOptions.builder(target, inOrder(w.bodies()))
                    .openLoop(rate, connections).duration(recorded).warmup(Duration.ZERO)
                    .requestTimeout(Duration.ofSeconds(30)).progress(false).build());
            List<BenchScrapes.SimStats> stats = new ArrayList<>();
            for (int i = 0; i < replicas; i++) {
                stats.add(minus(BenchScrapes.simStats(http, URI.create("http://127.0.0.1:" + (simPort + i))),
                        before.get(i)));
            }
            Run run = new Run(w.name(), balance, report, stats);
            info("TTFT mean %.1f ms, p99 %.1f ms; prefix hit rate %.3f; requests per replica %s; errors %s",
                    report.firstByte().meanMs(), report.firstByte().p99Ms(), run.hitRate(),
                    stats.stream().map(s -> Long.toString(s.requests())).toList(), report.errorsByKind());
            return run;
        } finally {
            children.stop(gateway);
            children.stop(sim);
        }
    }

    /** What happened between two reads of a replica's counters (the gauges are the later read's). */
    static BenchScrapes.SimStats minus(BenchScrapes.SimStats after, BenchScrapes.SimStats before) {
        return new BenchScrapes.SimStats(after.requests() - before.requests(), after.completed() - before.completed(),
                after.cancelled() - before.cancelled(), after.errors() - before.errors(), after.active(), after.queued(),
                after.prefixBlocksQueried() - before.prefixBlocksQueried(),
                after.prefixBlocksHit() - before.prefixBlocksHit(), after.prefixHitRequests() - before.prefixHitRequests());
    }

    /** The bodies in order, once; a request past the end starts over (only when --duration asks for more). */
    private static RequestSource inOrder(List<byte[]> bodies) {
        BenchRequest[] all = bodies.stream().map(b -> BenchRequest.post(PATH, b, true)).toArray(BenchRequest[]::new);
        AtomicLong next = new AtomicLong();
        return () -> all[(int) Long.remainderUnsigned(next.getAndIncrement(), all.length)];
    }

    /** A port p with p .. p + count - 1 free (the simulator binds its replicas there). */
    private static int freePorts(int count) throws Exception {
        for (int attempt = 0; attempt < 50; attempt++) {
            int base = LocalProcesses.freePort();
            boolean free = base + count <= 65535;
            for (int i = 1; free && i < count; i++) {
                try (java.net.ServerSocket s = new java.net.ServerSocket(base + i)) {
                    free = s.getLocalPort() == base + i;
                } catch (java.io.IOException taken) {
                    free = false;
                }
            }
            if (free) {
                return base;
            }
        }
        throw new IllegalStateException("found no " + count + " consecutive free ports");
    }

    private String policy(int port, int admin, int simPort, String balance) {
        StringBuilder urls = new StringBuilder();
        for (int i = 0; i < replicas; i++) {
            urls.append(i == 0 ? "" : ", ").append("\"http://127.0.0.1:").append(simPort + i).append('"');
        }
        return """
                server: { host: 127.0.0.1, port: %d, admin_port: %d, io_threads: %d, shutdown_grace: 1s }
                backends:
                  - name: sim
                    urls: [%s]
                    model_version: "bench@1"
                    max_connections_per_url: 256
                    balance: %s
                routes:
                  - match: { model: "*" }
                    backend: sim
                    cache: { exact: false }
                """.formatted(port, admin, gatewayThreads, urls, balance);
    }

    private static void info(String format, Object... args) {
        System.err.printf(Locale.ROOT, "prefix-affinity: " + format + "%n", args);
    }

    // ---------------------------------------------------------------------------------------------
    // The report

    private final class Summary {
        private final List<PrefixWorkloads.Workload> sets;
        private final List<Run> runs;

        Summary(List<PrefixWorkloads.Workload> sets, List<Run> runs) {
            this.sets = sets;
            this.runs = runs;
        }

        double median(String workload, String balance, ToDoubleFunction<Run> f) {
            return Medians.of(runs.stream().filter(r -> r.workload().equals(workload) && r.balance().equals(balance))
                    .mapToDouble(f));
        }

        double meanTtft(String workload, String balance) {
            return median(workload, balance, r -> r.report().firstByte().meanMs());
        }

        /** Round robin's mean TTFT over this policy's: how many times lower this policy's is. */
        double gain(String workload, String balance) {
            return balances.contains(BASELINE) ? meanTtft(workload, BASELINE) / meanTtft(workload, balance) : Double.NaN;
        }

        void print() {
            System.out.printf(Locale.ROOT, "%nPrefix affinity: %d simulator replicas, each %d sequences at once, prefix "
                            + "cache of %d blocks x 256 chars; TTFT = %d ms + %.2f ms per uncached prompt word "
                            + "(prefill dominates), then %.0f ms per token; %.1f requests/s, streamed; %d round(s); "
                            + "%d cores%n", replicas, maxConcurrency, prefixCacheBlocks, ttftMs, prefillMsPerToken, tpotMs,
                    rate, rounds, Runtime.getRuntime().availableProcessors());
            for (PrefixWorkloads.Workload w : sets) {
                System.out.printf(Locale.ROOT, "%nWorkload %s: %s%n", w.name(), w.description());
                System.out.printf(Locale.ROOT, "%-16s %10s %10s %10s %9s %12s %9s  %s%n", "balance", "TTFT mean",
                        "TTFT p50", "TTFT p99", "hit rate", "max/mean", "vs RR", "requests per replica");
                for (String b : balances) {
                    String perReplica = runs.stream().filter(r -> r.workload().equals(w.name()) && r.balance().equals(b))
                            .map(r -> r.replicas().stream().map(s -> Long.toString(s.requests())).toList().toString())
                            .reduce((x, y) -> x + " " + y).orElse("");
                    System.out.printf(Locale.ROOT, "%-16s %10.1f %10.1f %10.1f %9.3f %12.2f %9.2f  %s%n", b,
                            meanTtft(w.name(), b), median(w.name(), b, r -> r.report().firstByte().p50Ms()),
                            median(w.name(), b, r -> r.report().firstByte().p99Ms()),
                            median(w.name(), b, Run::hitRate), median(w.name(), b, Run::maxOverMean),
                            gain(w.name(), b), perReplica);
                }
                if (balances.contains("prefix_affinity") && balances.contains(BASELINE)) {
                    double g = gain(w.name(), "prefix_affinity");
                    double spread = median(w.name(), "prefix_affinity", Run::maxOverMean);
                    System.out.printf(Locale.ROOT, "Targets: mean TTFT >= 2x lower than round robin: %.2fx %s; "
                                    + "no replica above 1.5x the mean load: %.2f %s%n", g, g >= 2 ? "met" : "NOT met",
                            spread, spread <= 1.5 ? "met" : "NOT met");
                }
            }
            System.out.println("(TTFT in ms = first byte of the streamed answer, from the intended send time; hit rate = "
                    + "prefix blocks hit / looked up, summed over the replicas; max/mean = the busiest replica's "
                    + "requests over the mean; vs RR = round robin's mean TTFT / this one's.)");
        }

        String toJson() throws Exception {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("cores", Runtime.getRuntime().availableProcessors());
            out.put("replicas", replicas);
            out.put("prefillMsPerToken", prefillMsPerToken);
            out.put("prefixCacheBlocks", prefixCacheBlocks);
            out.put("rate", rate);
            List<Object> ws = new ArrayList<>();
            for (PrefixWorkloads.Workload w : sets) {
                Map<String, Object> wm = new LinkedHashMap<>();
                wm.put("name", w.name());
                wm.put("description", w.description());
                Map<String, Object> bm = new LinkedHashMap<>();
                for (String b : balances) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("ttftMeanMs", meanTtft(w.name(), b));
                    m.put("ttftP99Ms", median(w.name(), b, r -> r.report().firstByte().p99Ms()));
                    m.put("prefixHitRate", median(w.name(), b, Run::hitRate));
                    m.put("maxOverMeanLoad", median(w.name(), b, Run::maxOverMean));
                    m.put("meanTtftGainVsRoundRobin", gain(w.name(), b));
                    List<Object> rs = new ArrayList<>();
                    for (Run r : runs) {
                        if (r.workload().equals(w.name()) && r.balance().equals(b)) {
                            Map<String, Object> rm = new LinkedHashMap<>();
                            rm.put("report", r.report());
                            rm.put("replicas", r.replicas());
                            rs.add(rm);
                        }
                    }
                    m.put("runs", rs);
                    bm.put(b, m);
                }
                wm.put("balances", bm);
                ws.add(wm);
            }
            out.put("workloads", ws);
            return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(out);
        }
    }
}
