package io.cachegate.cli;

import io.cachegate.cache.semantic.MicroBatchingEmbedder;
import io.cachegate.cache.semantic.OnnxEmbedder;
import io.cachegate.config.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code cachegate bench semantic}: the semantic cache's three costs, each against a baseline measured in the
 * same run: the latency it adds to a miss (gateway with and without it, open loop), the micro-batching
 * embedder's throughput (against the raw ONNX loop) and the embedded index's search latency.
 */
@Command(name = "semantic", mixinStandardHelpOptions = true,
        description = {
            "Semantic-cache costs, each against a baseline from the same run.",
            "latency: a zero-latency simulator and two gateways with the same policy, semantic cache off and on, as "
                    + "child processes; open loop at --rate never-repeating deterministic chat requests (all misses), "
                    + "the gateways alternating in --rounds; reports p50/p99 of each and the difference.",
            "embedder: texts/s through the micro-batching embedder with --callers concurrent callers, for each "
                    + "--embedder-variants setting, against one thread calling the ONNX model directly, in this process.",
            "search: the embedded Lucene index with --entries random vectors in each --scopes layout; p50/p99 of "
                    + "scope-filtered top-k searches after a reopen.",
            "Exit status 1 on request errors."
        })
final class BenchSemanticCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--part", defaultValue = "all", paramLabel = "latency|embedder|search|all",
            description = "What to measure (default ${DEFAULT-VALUE}).")
    String part;

    @Option(names = "--rate", defaultValue = "100", description = "latency: requests/s, all misses (default ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--duration", defaultValue = "20s",
            description = "latency: recorded time of each gateway in each round (default ${DEFAULT-VALUE}).")
    String duration;

    @Option(names = "--warmup", defaultValue = "10s",
            description = "latency: unrecorded load on each gateway first, at --rate (default ${DEFAULT-VALUE}).")
    String warmup;

    @Option(names = "--rounds", defaultValue = "3",
            description = "Rounds of the latency and embedder parts; medians are reported (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--gateway-threads", defaultValue = "0",
            description = "latency: gateway event loop threads; 0 = its default (default ${DEFAULT-VALUE}).")
    int gatewayThreads;

    @Option(names = "--gateway-embedder", defaultValue = "default", paramLabel = "default|BATCHxWORKERS[xINTRA]",
            description = "latency: cache.semantic.embedder max_batch, workers and intra_op_threads of both gateways "
                    + "(default ${DEFAULT-VALUE}: the policy defaults).")
    String gatewayEmbedder;

    @Option(names = "--child-jvm-opts", defaultValue = "-Xmx1g -XX:+UseParallelGC",
            description = "latency: JVM options of the simulator and gateway processes (default ${DEFAULT-VALUE}).")
    String childJvmOpts;

    @Option(names = "--callers", defaultValue = "16",
            description = "embedder: concurrent callers, each with one text in flight (default ${DEFAULT-VALUE}).")
    int callers;

    @Option(names = "--embedder-duration", defaultValue = "5s",
            description = "embedder: recorded time of each phase (default ${DEFAULT-VALUE}).")
    String embedderDuration;

    @Option(names = "--embedder-variants", split = ",", defaultValue = "default,32x1",
            paramLabel = "default|BATCHxWORKERS[xINTRA]",
            description = "embedder: settings to measure; the raw loop runs at batch 1 and at each max_batch "
                    + "(default ${DEFAULT-VALUE}).")
    List<String> embedderVariants;

    @Option(names = "--entries", defaultValue = "100000", description = "search: entries (default ${DEFAULT-VALUE}).")
    int entries;

    @Option(names = "--scopes", split = ",", defaultValue = "100,1",
            description = "search: scope layouts to measure, entries spread evenly (default ${DEFAULT-VALUE}).")
    List<Integer> scopes;

    @Option(names = "--queries", defaultValue = "2000", description = "search: timed searches per layout (default ${DEFAULT-VALUE}).")
    int queries;

    @Option(names = "--k", defaultValue = "5",
            description = "search: neighbours per search, as cache.semantic.neighbours (default ${DEFAULT-VALUE}).")
    int k;

    @Option(names = "--json", description = "Print the result as JSON.")
    boolean json;

    /** The validated options. */
    record Plan(boolean latency, boolean embedder, boolean search, Duration duration, Duration warmup,
                Duration embedderDuration, EmbedderThroughputBench.Variant gatewayEmbedder,
                List<EmbedderThroughputBench.Variant> variants) {
    }

    @Override
    public Integer call() throws Exception {
        Plan plan;
        try {
            plan = plan();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        SemanticLatencyBench.Result latency = null;
        if (plan.latency()) {
            latency = new SemanticLatencyBench(new SemanticLatencyBench.Settings(rate, plan.duration(), plan.warmup(),
                    rounds, gatewayThreads, childJvmOpts, plan.gatewayEmbedder())).run();
        }
        SemanticBenchReport.Embedder embedder = plan.embedder() ? embedder(plan) : null;
        List<SemanticBenchReport.Search> search = null;
        if (plan.search()) {
            search = new ArrayList<>();
            VectorSearchBench bench = new VectorSearchBench(entries, queries, k);
            for (int s : scopes) {
                search.add(new SemanticBenchReport.Search(bench.run(s + (s == 1 ? " scope" : " scopes"), s)));
            }
        }
        SemanticBenchReport report = new SemanticBenchReport(Runtime.getRuntime().availableProcessors(), latency,
                embedder, search);
        System.out.print(json ? report.toJson() + System.lineSeparator() : report.toText());
        System.out.flush();
        return latency != null && latency.errors() > 0 ? 1 : 0;
    }

    /** Validates the options, naming the one at fault. */
    Plan plan() {
        List<String> problems = new ArrayList<>();
        String p = part.trim().toLowerCase(Locale.ROOT);
        if (!List.of("latency", "embedder", "search", "all").contains(p)) {
            problems.add("--part must be latency, embedder, search or all (was \"" + part + "\")");
        }
        boolean all = "all".equals(p);
        if (!(rate > 0 && Double.isFinite(rate))) {
            problems.add("--rate must be > 0 (was " + rate + ")");
        }
        if (rounds < 1) {
            problems.add("--rounds must be >= 1 (was " + rounds + ")");
        }
        if (callers < 1) {
            problems.add("--callers must be >= 1 (was " + callers + ")");
        }
        if (entries < 1) {
            problems.add("--entries must be >= 1 (was " + entries + ")");
        }
        if (queries < 1) {
            problems.add("--queries must be >= 1 (was " + queries + ")");
        }
        if (k < 1) {
            problems.add("--k must be >= 1 (was " + k + ")");
        }
        if (gatewayThreads < 0) {
            problems.add("--gateway-threads must be >= 0 (was " + gatewayThreads + ")");
        }
        for (int s : scopes) {
            if (s < 1 || s > entries) {
                problems.add("--scopes must each be in 1..--entries (was " + s + ")");
            }
        }
        Duration recorded = duration("--duration", duration, problems);
        Duration warm = duration("--warmup", warmup, problems);
        Duration embedderTime = duration("--embedder-duration", embedderDuration, problems);
        EmbedderThroughputBench.Variant gateway = variant(gatewayEmbedder, problems);
        Map<EmbedderThroughputBench.Variant, Boolean> variants = new LinkedHashMap<>();
        for (String v : embedderVariants) {
            EmbedderThroughputBench.Variant parsed = variant(v, problems);
            if (parsed != null) {
                variants.put(parsed, true);
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        return new Plan(all || "latency".equals(p), all || "embedder".equals(p), all || "search".equals(p), recorded,
                warm, embedderTime, gateway, List.copyOf(variants.keySet()));
    }

    private static Duration duration(String option, String text, List<String> problems) {
        try {
            Duration d = Durations.parse(text);
            if (d.isZero() || d.isNegative()) {
                problems.add(option + " must be > 0 (was " + text + ")");
            }
            return d;
        } catch (IllegalArgumentException e) {
            problems.add(option + ": " + e.getMessage());
            return null;
        }
    }

    private static EmbedderThroughputBench.Variant variant(String text, List<String> problems) {
        if ("default".equals(text.trim())) {
            return EmbedderThroughputBench.Variant.defaults();
        }
        try {
            return EmbedderThroughputBench.Variant.parse(text);
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
            return null;
        }
    }

    /** The raw loop and each variant, alternating in rounds; one model session per configuration, kept open. */
    private SemanticBenchReport.Embedder embedder(Plan plan) throws InterruptedException {
        EmbedderThroughputBench bench = new EmbedderThroughputBench(plan.embedderDuration(), callers);
        EmbedderThroughputBench.Variant defaults = EmbedderThroughputBench.Variant.defaults();
        TreeSet<Integer> rawBatches = new TreeSet<>(List.of(1));
        plan.variants().forEach(v -> rawBatches.add(v.maxBatch()));
        List<MicroBatchingEmbedder> embedders = new ArrayList<>();
        // The raw loop uses the defaults' session settings (intra-op threads), as the default embedder does.
        try (OnnxEmbedder model = OnnxEmbedder.open(defaults.settings())) {
            for (EmbedderThroughputBench.Variant v : plan.variants()) {
                MicroBatchingEmbedder e = MicroBatchingEmbedder.start(v.settings());
                embedders.add(e);
                e.warmedUp().join();
            }
            Map<Integer, List<Double>> raw = new LinkedHashMap<>();
            rawBatches.forEach(b -> raw.put(b, new ArrayList<>()));
            List<List<Double>> batched = new ArrayList<>();
            plan.variants().forEach(v -> batched.add(new ArrayList<>()));
            for (int r = 0; r < rounds; r++) {
                for (int b : rawBatches) {
                    double rate = bench.raw(model, b);
                    EmbedderThroughputBench.info("round %d: raw ONNX loop, batch %d: %.1f texts/s", r + 1, b, rate);
                    raw.get(b).add(rate);
                }
                for (int i = 0; i < embedders.size(); i++) {
                    batched.get(i).add(bench.batched(embedders.get(i),
                            "round " + (r + 1) + ": embedder " + SemanticBenchReport.label(plan.variants().get(i))));
                }
            }
            List<SemanticBenchReport.Raw> raws = new ArrayList<>();
            raw.forEach((b, rates) -> raws.add(new SemanticBenchReport.Raw(b, rates)));
            List<SemanticBenchReport.Batched> rows = new ArrayList<>();
            for (int i = 0; i < embedders.size(); i++) {
                EmbedderThroughputBench.Variant v = plan.variants().get(i);
                rows.add(new SemanticBenchReport.Batched(v, v.equals(defaults), batched.get(i)));
            }
            return new SemanticBenchReport.Embedder(callers, plan.embedderDuration().toMillis() / 1000.0, raws, rows);
        } finally {
            embedders.forEach(MicroBatchingEmbedder::close);
        }
    }
}
