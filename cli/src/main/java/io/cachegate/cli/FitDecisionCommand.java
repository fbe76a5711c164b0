package io.cachegate.cli;

import io.cachegate.cache.semantic.LearnedDecision;
import io.cachegate.cache.semantic.LearnedParameters;
import io.cachegate.cache.semantic.MatchDecision;
import io.cachegate.cache.semantic.MicroBatchingEmbedder;
import io.cachegate.cache.semantic.Neighbour;
import io.cachegate.cache.semantic.PairFeatures;
import io.cachegate.config.SemanticCacheSettings.EmbedderSettings;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code cachegate fit-decision}: fits the parameters of {@link LearnedDecision} on labelled pairs and on
 * intent-labelled queries, and writes them as a parameters file. Only pairs at or above {@code --floor} are
 * fitted on, because the decision never sees the others. Prints the training figures at a sweep of minimum
 * probabilities, so the one written can be chosen with them; report on other rows ({@code eval-semantic}).
 */
@Command(name = "fit-decision", mixinStandardHelpOptions = true,
        description = {
            "Fits the learned match decision (logistic regression over pair features) with the bundled embedder or --model.",
            "--pairs FILE (text_a, text_b, label) and/or --intents FILE (text, intent; each row against its "
                    + "nearest rows of the same slice, same intent = match, oos never matches)."
        })
final class FitDecisionCommand implements Callable<Integer> {

    @Option(names = "--pairs", paramLabel = "FILE", description = "Labelled pairs: text_a, text_b, label (0/1).")
    Path pairs;

    @Option(names = "--offset", defaultValue = "0", description = "Pairs to skip first (default ${DEFAULT-VALUE}).")
    int offset;

    @Option(names = "--limit", defaultValue = "6000", description = "Pairs to fit on (default ${DEFAULT-VALUE}).")
    int limit;

    @Option(names = "--intents", paramLabel = "FILE", description = "Intent-labelled queries: text, intent (repeatable).")
    List<Path> intents = new ArrayList<>();

    @Option(names = "--intent-offset", defaultValue = "0", description = "Rows of each --intents file to skip, "
            + "after the shuffle (default ${DEFAULT-VALUE}).")
    int intentOffset;

    @Option(names = "--intent-limit", defaultValue = "8000", description = "Rows of each --intents file "
            + "(default ${DEFAULT-VALUE}).")
    int intentLimit;

    @Option(names = "--seed", defaultValue = "42", description = "Shuffle of the --intents files, as in eval-semantic "
            + "(default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--k", defaultValue = "5", description = "Neighbours per intent row (default ${DEFAULT-VALUE}).")
    int k;

    @Option(names = "--floor", defaultValue = "0.85", description = "Pairs below this cosine are not fitted on "
            + "(default ${DEFAULT-VALUE}).")
    double floor;

    @Option(names = "--l2", defaultValue = "0.001", description = "L2 penalty (default ${DEFAULT-VALUE}).")
    double l2;

    @Option(names = "--iterations", defaultValue = "4000", description = "Gradient steps (default ${DEFAULT-VALUE}).")
    int iterations;

    @Option(names = "--min-probability", defaultValue = "0.5", description = "Minimum probability written to the "
            + "parameters (default ${DEFAULT-VALUE}).")
    double minProbability;

    @Option(names = "--out", paramLabel = "FILE", required = true, description = "The parameters file to write.")
    Path out;

    @Mixin
    EmbedderModelOptions model = new EmbedderModelOptions();

    @Option(names = "--cache-dir", paramLabel = "DIR", description = "Vector cache (default ${java.io.tmpdir}/cachegate-eval-cache).")
    Path cacheDir;

    /** The fitting examples: features and labels. */
    private final List<double[]> x = new ArrayList<>();
    private final List<Boolean> y = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        if (pairs == null && intents.isEmpty()) {
            System.err.println("fit-decision: give --pairs FILE and/or --intents FILE");
            return 2;
        }
        EmbedderSettings settings;
        try {
            settings = model.settings();
        } catch (IllegalArgumentException e) {
            System.err.println("fit-decision: " + e.getMessage());
            return 2;
        }
        Path root = EmbeddingDiskCache.root(cacheDir);
        String modelId;
        List<PairSet> pairSets = new ArrayList<>();
        List<IntentSet> intentSets = new ArrayList<>();
        try (MicroBatchingEmbedder embedder = MicroBatchingEmbedder.start(settings)) {
            embedder.warmedUp().join();
            modelId = embedder.modelId();
            EmbeddingDiskCache cache = new EmbeddingDiskCache(embedder, root);
            if (pairs != null) {
                pairSets.add(PairSet.load(cache, pairs, offset, limit));
            }
            for (Path file : intents) {
                intentSets.add(IntentSet.load(cache, file, seed, intentOffset, intentLimit, k));
            }
        }
        for (PairSet set : pairSets) {
            set.examples(floor, x, y);
        }
        for (IntentSet set : intentSets) {
            set.examples(floor, x, y);
        }
        double[][] features = x.toArray(new double[0][]);
        boolean[] labels = new boolean[y.size()];
        long positives = 0;
        for (int i = 0; i < labels.length; i++) {
            labels[i] = y.get(i);
            positives += labels[i] ? 1 : 0;
        }
        LogisticFit.Model model = LogisticFit.fit(features, labels, l2, iterations);
        System.out.printf(Locale.ROOT, "%d examples at cosine >= %.2f (%d positive); log loss %.4f%n",
                features.length, floor, positives, LogisticFit.logLoss(model, features, labels));
        for (int j = 0; j < PairFeatures.COUNT; j++) {
            System.out.printf(Locale.ROOT, "  %-22s %10.4f%n", PairFeatures.NAMES.get(j), model.weights()[j]);
        }
        System.out.printf(Locale.ROOT, "  %-22s %10.4f%n", "bias", model.bias());
        printSweep(model, modelId, pairSets, intentSets);
        LearnedParameters parameters = model.parameters(modelId, minProbability);
        Path parent = out.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (Writer writer = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            parameters.write(writer, List.of("Learned match decision: logistic regression over PairFeatures.",
                    "Written by: cachegate fit-decision " + describe()));
        }
        System.out.println("wrote " + out);
        return 0;
    }

    private String describe() {
        StringBuilder s = new StringBuilder();
        if (pairs != null) {
            s.append("--pairs ").append(pairs.getFileName()).append(" --offset ").append(offset)
                    .append(" --limit ").append(limit).append(' ');
        }
        for (Path file : intents) {
            s.append("--intents ").append(file.getFileName()).append(' ');
        }
        if (!intents.isEmpty()) {
            s.append("--intent-offset ").append(intentOffset).append(" --intent-limit ").append(intentLimit)
                    .append(" --seed ").append(seed).append(" --k ").append(k).append(' ');
        }
        return s.append(String.format(Locale.ROOT, "--floor %s --l2 %s --iterations %d --min-probability %s",
                floor, l2, iterations, minProbability)).toString();
    }

    /** Training figures of the decision at a sweep of minimum probabilities (in-sample: for choosing, not reporting). */
    private void printSweep(LogisticFit.Model model, String modelId, List<PairSet> pairSets, List<IntentSet> intentSets) {
        System.out.println("training figures (in-sample) by minimum probability:");
        for (double p : new double[] {0.5, 0.7, 0.8, 0.85, 0.9, 0.92, 0.94, 0.95, 0.96, 0.97, 0.98, 0.99}) {
            LearnedDecision decision = new LearnedDecision(floor, model.parameters(modelId, p));
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  p>=%.2f", p));
            for (PairSet set : pairSets) {
                line.append(set.figures(decision));
            }
            for (IntentSet set : intentSets) {
                line.append(set.figures(decision));
            }
            System.out.println(line);
        }
    }

    /** Labelled pairs with the cosine of each. */
    private record PairSet(List<EvalTsv.Pair> rows, float[] cosines) {

        static PairSet load(EmbeddingDiskCache cache, Path file, int offset, int limit) throws Exception {
            List<EvalTsv.Pair> rows = EvalTsv.pairs(file, 0, offset, limit);
            List<String> texts = new ArrayList<>(rows.size() * 2);
            for (EvalTsv.Pair p : rows) {
                texts.add(p.textA());
                texts.add(p.textB());
            }
            float[][] v = cache.embed(texts);
            float[] cosines = new float[rows.size()];
            for (int i = 0; i < rows.size(); i++) {
                cosines[i] = BruteForceNeighbours.dot(v[2 * i], v[2 * i + 1]);
            }
            return new PairSet(rows, cosines);
        }

        void examples(double floor, List<double[]> x, List<Boolean> y) {
            for (int i = 0; i < rows.size(); i++) {
                if (cosines[i] >= (float) floor) {
                    x.add(PairFeatures.of(rows.get(i).textA(), rows.get(i).textB(), cosines[i]));
                    y.add(rows.get(i).same());
                }
            }
        }

        String figures(MatchDecision decision) {
            long tp = 0;
            long fp = 0;
            long positives = 0;
            for (int i = 0; i < rows.size(); i++) {
                EvalTsv.Pair p = rows.get(i);
                positives += p.same() ? 1 : 0;
                Neighbour n = new Neighbour("b", cosines[i], p.textB(), 0, 0);
                if (decision.decide(p.textA(), new float[0], List.of(n)).isPresent()) {
                    tp += p.same() ? 1 : 0;
                    fp += p.same() ? 0 : 1;
                }
            }
            return String.format(Locale.ROOT, "  pairs P %.4f R %.4f", tp + fp == 0 ? 1.0 : (double) tp / (tp + fp),
                    positives == 0 ? 0.0 : (double) tp / positives);
        }
    }

    /** Intent-labelled rows with each row's nearest other rows. */
    private record IntentSet(String name, List<EvalTsv.Query> rows, List<List<Neighbour>> neighbours) {

        static IntentSet load(EmbeddingDiskCache cache, Path file, long seed, int offset, int limit, int k)
                throws Exception {
            List<EvalTsv.Query> rows = EvalTsv.queries(file, seed, offset, limit);
            List<String> texts = rows.stream().map(EvalTsv.Query::text).toList();
            float[][] v = cache.embed(texts);
            List<List<Neighbour>> neighbours = java.util.stream.IntStream.range(0, rows.size()).parallel()
                    .mapToObj(i -> BruteForceNeighbours.nearestOthers(v[i], texts.get(i), v, texts, k, i))
                    .toList();
            return new IntentSet(String.valueOf(file.getFileName()), rows, neighbours);
        }

        void examples(double floor, List<double[]> x, List<Boolean> y) {
            for (int i = 0; i < rows.size(); i++) {
                EvalTsv.Query query = rows.get(i);
                for (Neighbour n : neighbours.get(i)) {
                    if (n.similarity() >= (float) floor) {
                        x.add(PairFeatures.of(query.text(), n.text(), n.similarity()));
                        y.add(same(query, rows.get(Integer.parseInt(n.entryKey()))));
                    }
                }
            }
        }

        static boolean same(EvalTsv.Query query, EvalTsv.Query cached) {
            return !query.outOfScope() && query.intent().equals(cached.intent());
        }

        String figures(MatchDecision decision) {
            long hits = 0;
            long wrong = 0;
            for (int i = 0; i < rows.size(); i++) {
                Optional<MatchDecision.Match> match = decision.decide(rows.get(i).text(), new float[0], neighbours.get(i));
                if (match.isPresent()) {
                    hits++;
                    wrong += same(rows.get(i), rows.get(Integer.parseInt(match.get().neighbour().entryKey()))) ? 0 : 1;
                }
            }
            return String.format(Locale.ROOT, "  %s hit %.4f false %.4f", name.replace(".tsv", ""),
                    (double) hits / Math.max(1, rows.size()), hits == 0 ? 0.0 : (double) wrong / hits);
        }
    }
}
