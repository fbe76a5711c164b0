package io.cachegate.benchmarks;

import io.cachegate.cache.semantic.MicroBatchingEmbedder;
import io.cachegate.cache.semantic.OnnxEmbedder;
import io.cachegate.config.SemanticCacheSettings.EmbedderSettings;
import io.cachegate.config.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code cachegate bench semantic}: the semantic cache's three costs, each against a baseline measured in the
 * same run: the latency it adds to a miss (gateway with and without it, open loop), the micro-batching
 * embedder's throughput (against the raw ONNX loop) and the embedded index's search latency.
 */
@Command(name = "semantic", mixinStandardHelpOptions = true,
        description = {
            "Semantic-cache costs, each against a baseline from the same run.",
            "latency: a zero-latency simulator and two gateways with the same policy, semantic cache off and on, as "
                    + "child processes; --warmup of load on each gateway first, then open loop at --rate never-repeating "
                    + "deterministic chat requests (all misses) for --duration, the gateways alternating in --rounds; "
                    + "reports p50/p99 of each and the difference.",
            "embedder: texts/s through the micro-batching embedder with --callers concurrent callers, for each "
                    + "--embedder-variants setting, against one thread calling the ONNX model directly, in this process; "
                    + "--rounds of each.",
            "search: the embedded Lucene index with --entries vectors (--vectors random and/or clustered) in each "
                    + "--scopes layout; p50/p99/p99.9 of scope-filtered top-k searches after a reopen, alone and then with "
                    + "an add every --write-every searches, and how often a near query's entry is found.",
            "correctness (not in all: minutes per decision): a simulator with --answers and, per decision, a fresh "
                    + "gateway warmed with --warm rows, then replaying --query-tsv rows; semantic hit rate and true "
                    + "wrong-hit rate of each stream and of the query stream's last half.",
            "Exit status 1 on request errors."
        })
final class BenchSemanticCommand extends Scenario {

    private static final List<String> PARTS = List.of("latency", "embedder", "search", "correctness", "all");

    @Option(names = "--part", defaultValue = "all", paramLabel = "latency|embedder|search|correctness|all",
            description = "What to measure (default ${DEFAULT-VALUE}).")
    String part;

    @Mixin
    CorrectnessOptions correctness = new CorrectnessOptions();

    @Option(names = "--rate", defaultValue = "100", description = "latency: requests/s, all misses (default ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--speculative-upstream",
            description = "latency: the semantic gateway sends a miss upstream while its lookup runs "
                    + "(cache.semantic.speculative_upstream).")
    boolean speculativeUpstream;

    @Option(names = "--sim-ttft-ms", defaultValue = "0",
            description = "latency: the simulator's time to first token, as a model server's (default ${DEFAULT-VALUE}).")
    long simTtftMs;

    @Option(names = "--gateway-embedder", defaultValue = "default", paramLabel = "default|BATCHxWORKERS[xINTRA]",
            description = "latency: cache.semantic.embedder max_batch, workers and intra_op_threads of both gateways "
                    + "(default ${DEFAULT-VALUE}: the policy defaults).")
    String gatewayEmbedder;

    @Option(names = "--callers", defaultValue = "16",
            description = "embedder: concurrent callers, each with one text in flight (default ${DEFAULT-VALUE}).")
    int callers;

    @Option(names = "--embedder-model", defaultValue = "bundled", paramLabel = "bundled|bundled-fp32",
            description = "embedder: the bundled model of the raw loop and of every variant; \"default\" is that "
                    + "model's default settings (default ${DEFAULT-VALUE}).")
    String embedderModel;

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

    @Option(names = "--write-every", defaultValue = "10",
            description = "search: an add (not awaited) after every this many searches in the second measurement, "
                    + "as misses write back; 0 = searches alone only (default ${DEFAULT-VALUE}).")
    int writeEvery;

    @Option(names = "--keep-index", paramLabel = "DIR",
            description = "search: keep a copy of each loaded index under DIR and reuse it in later runs instead of "
                    + "loading again (the index must still be on disk the same way: same --entries and --scopes).")
    java.nio.file.Path keepIndex;

    @Option(names = "--k", defaultValue = "10",
            description = "search: neighbours per search; the gateway searches 10 under an error budget, else "
                    + "cache.semantic.neighbours (default ${DEFAULT-VALUE}).")
    int k;

    @Option(names = "--query-kinds", split = ",", defaultValue = "random,near", paramLabel = "random|near",
            description = "search: random unit vectors (near no entry), and/or stored entries moved to cosine 0.93 "
                    + "(a paraphrase's distance) (default ${DEFAULT-VALUE}).")
    List<String> queryKinds;

    @Option(names = "--vectors", split = ",", defaultValue = "random", paramLabel = "random|clustered",
            description = "search: stored vectors uniformly random (the hardest case for a graph index) and/or "
                    + "clustered around topic centroids, as real embeddings are (default ${DEFAULT-VALUE}).")
    List<String> vectors;

    /** The validated options. */
    record Plan(boolean latency, boolean embedder, boolean search, Duration duration, Duration warmup,
                Duration embedderDuration, EmbedderThroughputBench.Variant gatewayEmbedder,
                List<EmbedderThroughputBench.Variant> variants) {
    }

    BenchSemanticCommand() {
        super("semantic", new ScenarioOptions("20s", "10s", 3, ScenarioOptions.CHILD_JVM_OPTS));
    }

    @Override
    ScenarioReport measure(BenchChildren children) throws Exception {
        Plan plan = plan();
        if ("correctness".equals(part.trim().toLowerCase(Locale.ROOT))) {
            return new SemanticCorrectnessReport(new SemanticCorrectnessBench(correctness)
                    .run(children, options.gatewayThreads()));
        }
        SemanticLatencyBench.Result latency = null;
        if (plan.latency()) {
            latency = new SemanticLatencyBench(new SemanticLatencyBench.Settings(rate, plan.duration(), plan.warmup(),
                    options.rounds(), options.gatewayThreads(), plan.gatewayEmbedder(), speculativeUpstream, simTtftMs))
                    .run(children);
        }
        SemanticBenchReport.Embedder embedder = plan.embedder() ? embedder(plan) : null;
        List<SemanticBenchReport.Search> search = null;
        if (plan.search()) {
            search = new ArrayList<>();
            for (String kind : vectors) {
                VectorSearchBench bench = new VectorSearchBench(entries, queries, k, writeEvery, keepIndex, queryKinds,
                        BenchVectors.of(kind, entries, VectorSearchBench.DIMENSION));
                for (int s : scopes) {
                    for (VectorSearchBench.Result r : bench.run(s + (s == 1 ? " scope" : " scopes"), s)) {
                        search.add(new SemanticBenchReport.Search(r));
                    }
                }
            }
        }
        return new SemanticBenchReport(Runtime.getRuntime().availableProcessors(), latency, embedder, search);
    }

    /** The validated options; an IllegalArgumentException names every one at fault. */
    Plan plan() {
        List<String> problems = new ArrayList<>();
        options.check(problems);
        check(problems);
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        String p = part.trim().toLowerCase(Locale.ROOT);
        boolean all = "all".equals(p);
        Map<EmbedderThroughputBench.Variant, Boolean> variants = new LinkedHashMap<>();
        embedderVariants.forEach(v -> variants.put("default".equals(v.trim())
                ? EmbedderThroughputBench.Variant.defaults(embedderModel) : variant(v, problems), true));
        return new Plan(all || "latency".equals(p), all || "embedder".equals(p), all || "search".equals(p),
                options.duration(), options.warmup(), Durations.parse(embedderDuration),
                variant(gatewayEmbedder, problems), List.copyOf(variants.keySet()));
    }

    @Override
    void check(List<String> problems) {
        if (!PARTS.contains(part.trim().toLowerCase(Locale.ROOT))) {
            problems.add("--part must be latency, embedder, search, correctness or all (was \"" + part + "\")");
        }
        if ("correctness".equals(part.trim().toLowerCase(Locale.ROOT))) {
            correctness.check(problems);
        }
        if (!(rate > 0 && Double.isFinite(rate))) {
            problems.add("--rate must be > 0 (was " + rate + ")");
        }
        for (Object[] n : new Object[][] {{"--callers", callers}, {"--entries", entries}, {"--queries", queries},
            {"--k", k}}) {
            if ((int) n[1] < 1) {
                problems.add(n[0] + " must be >= 1 (was " + n[1] + ")");
            }
        }
        if (writeEvery < 0) {
            problems.add("--write-every must be >= 0 (was " + writeEvery + ")");
        }
        for (int s : scopes) {
            if (s < 1 || s > entries) {
                problems.add("--scopes must each be in 1..--entries (was " + s + ")");
            }
        }
        if (queryKinds.isEmpty() || !VectorSearchBench.QUERY_KINDS.containsAll(queryKinds)) {
            problems.add("--query-kinds must name random and/or near (was " + String.join(",", queryKinds) + ")");
        }
        if (vectors.isEmpty() || !BenchVectors.KINDS.containsAll(vectors)) {
            problems.add("--vectors must name random and/or clustered (was " + String.join(",", vectors) + ")");
        }
        positive("--duration", options::duration, problems);
        positive("--warmup", options::warmup, problems);
        positive("--embedder-duration", () -> Durations.parse(embedderDuration), problems);
        variant(gatewayEmbedder, problems);
        embedderVariants.forEach(v -> variant(v, problems));
        if (!EmbedderSettings.BUNDLED_MODELS.contains(embedderModel)) {
            problems.add("--embedder-model must be one of " + String.join(", ", EmbedderSettings.BUNDLED_MODELS)
                    + " (was \"" + embedderModel + "\")");
        }
    }

    /** Adds a problem when the duration is zero; one that does not parse is named by the options' own check. */
    private static void positive(String option, Supplier<Duration> duration, List<String> problems) {
        try {
            if (duration.get().isZero()) {
                problems.add(option + " must be > 0 (was 0s)");
            }
        } catch (IllegalArgumentException e) {
            if (option.equals("--embedder-duration")) {
                problems.add(option + ": " + e.getMessage());
            }
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
        EmbedderThroughputBench.Variant defaults = EmbedderThroughputBench.Variant.defaults(embedderModel);
        TreeSet<Integer> rawBatches = new TreeSet<>(List.of(1));
        plan.variants().forEach(v -> rawBatches.add(v.maxBatch()));
        List<MicroBatchingEmbedder> embedders = new ArrayList<>();
        // The raw loop uses the defaults' session settings (intra-op threads), as the default embedder does.
        try (OnnxEmbedder model = OnnxEmbedder.open(defaults.settings(embedderModel))) {
            for (EmbedderThroughputBench.Variant v : plan.variants()) {
                MicroBatchingEmbedder e = MicroBatchingEmbedder.start(v.settings(embedderModel));
                embedders.add(e);
                e.warmedUp().join();
            }
            Map<Integer, List<EmbedderThroughputBench.RawResult>> raw = new LinkedHashMap<>();
            rawBatches.forEach(b -> raw.put(b, new ArrayList<>()));
            List<List<Double>> batched = new ArrayList<>();
            plan.variants().forEach(v -> batched.add(new ArrayList<>()));
            for (int r = 0; r < options.rounds(); r++) {
                for (int b : rawBatches) {
                    EmbedderThroughputBench.RawResult texts = bench.raw(model, b);
                    EmbedderThroughputBench.PROGRESS.info("round %d: raw ONNX loop, batch %d: %.1f texts/s, call p50"
                            + " %.2f ms", r + 1, b, texts.textsPerSecond(), texts.p50CallMs());
                    raw.get(b).add(texts);
                }
                for (int i = 0; i < embedders.size(); i++) {
                    batched.get(i).add(bench.batched(embedders.get(i),
                            "round " + (r + 1) + ": embedder " + SemanticBenchReport.label(plan.variants().get(i))));
                }
            }
            List<SemanticBenchReport.Raw> raws = new ArrayList<>();
            raw.forEach((b, rounds) -> raws.add(new SemanticBenchReport.Raw(b,
                    rounds.stream().map(EmbedderThroughputBench.RawResult::textsPerSecond).toList(),
                    rounds.stream().map(EmbedderThroughputBench.RawResult::p50CallMs).toList())));
            List<SemanticBenchReport.Batched> rows = new ArrayList<>();
            for (int i = 0; i < embedders.size(); i++) {
                EmbedderThroughputBench.Variant v = plan.variants().get(i);
                rows.add(new SemanticBenchReport.Batched(v, v.equals(defaults), batched.get(i)));
            }
            return new SemanticBenchReport.Embedder(model.modelId(), callers, plan.embedderDuration().toMillis() / 1000.0,
                    raws, rows);
        } finally {
            embedders.forEach(MicroBatchingEmbedder::close);
        }
    }
}
