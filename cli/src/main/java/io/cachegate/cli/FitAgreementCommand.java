package io.cachegate.cli;

import io.cachegate.cache.semantic.MicroBatchingEmbedder;
import io.cachegate.cache.semantic.Neighbour;
import io.cachegate.cache.semantic.NeighbourhoodAgreement;
import io.cachegate.cache.semantic.ProbabilityBins;
import io.cachegate.config.SemanticCacheSettings.EmbedderSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;
import java.util.stream.IntStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code cachegate fit-agreement}: fits the weights of {@link NeighbourhoodAgreement}, the error budget's prior
 * for a candidate whose answer other neighbours share. Each row of the {@code --intents} slices is a query
 * against the other rows of its slice (leave one out); every answer group among its nearest rows, at or above
 * the agreement floor, is an example, right when its intent is the query's (out-of-scope rows are each an answer
 * of their own). Prints the weights as the Java line to paste, and the figures at a sweep of probabilities on a
 * held-out {@code --warm}/{@code --queries} pair, as the budget would serve them.
 */
@Command(name = "fit-agreement", mixinStandardHelpOptions = true,
        description = {
            "Fits the error budget's neighbourhood-agreement prior (logistic regression) on intent-labelled rows.",
            "--intents FILE (text, intent; repeatable): leave-one-out neighbourhoods of each slice. "
                    + "--warm FILE --queries FILE: held-out figures."
        })
final class FitAgreementCommand implements Callable<Integer> {

    @Option(names = "--intents", paramLabel = "FILE", required = true,
            description = "Intent-labelled rows to fit on: text, intent (repeatable).")
    List<Path> intents = new ArrayList<>();

    @Option(names = "--intent-limit", description = "Rows of the --intents file in the same place, after the "
            + "shuffle; the last one given holds for the files after it (default 8000).")
    List<Integer> intentLimits = new ArrayList<>();

    @Option(names = "--warm", paramLabel = "FILE", description = "Held-out check: rows that fill the cache.")
    Path warm;

    @Option(names = "--warm-limit", defaultValue = "8000", description = "Warm rows (default ${DEFAULT-VALUE}).")
    int warmLimit;

    @Option(names = "--queries", paramLabel = "FILE", description = "Held-out check: rows looked up.")
    Path queries;

    @Option(names = "--query-offset", defaultValue = "8000", description = "Query rows to skip (default ${DEFAULT-VALUE}).")
    int queryOffset;

    @Option(names = "--query-limit", defaultValue = "5000", description = "Query rows (default ${DEFAULT-VALUE}).")
    int queryLimit;

    @Option(names = "--seed", defaultValue = "42", description = "Shuffle of every file, as in eval-semantic "
            + "(default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--l2", defaultValue = "0.001", description = "L2 penalty (default ${DEFAULT-VALUE}).")
    double l2;

    @Option(names = "--iterations", defaultValue = "4000", description = "Gradient steps (default ${DEFAULT-VALUE}).")
    int iterations;

    @Mixin
    EmbedderModelOptions model = new EmbedderModelOptions();

    @Option(names = "--cache-dir", paramLabel = "DIR", description = "Vector cache (default ${java.io.tmpdir}/cachegate-eval-cache).")
    Path cacheDir;

    @Override
    public Integer call() throws Exception {
        if ((warm == null) != (queries == null)) {
            System.err.println("fit-agreement: give --warm FILE and --queries FILE together");
            return 2;
        }
        EmbedderSettings settings;
        try {
            settings = model.settings();
        } catch (IllegalArgumentException e) {
            System.err.println("fit-agreement: " + e.getMessage());
            return 2;
        }
        Path root = EmbeddingDiskCache.root(cacheDir);
        List<Examples> fitted = new ArrayList<>();
        Examples heldOut = null;
        try (MicroBatchingEmbedder embedder = MicroBatchingEmbedder.start(settings)) {
            embedder.warmedUp().join();
            EmbeddingDiskCache cache = new EmbeddingDiskCache(embedder, root);
            for (int i = 0; i < intents.size(); i++) {
                int limit = intentLimits.isEmpty() ? 8000 : intentLimits.get(Math.min(i, intentLimits.size() - 1));
                Labelled rows = Labelled.load(cache, intents.get(i), seed, 0, limit);
                fitted.add(Examples.of(rows, rows, true));
            }
            if (warm != null) {
                heldOut = Examples.of(Labelled.load(cache, warm, seed, 0, warmLimit),
                        Labelled.load(cache, queries, seed, queryOffset, queryLimit), false);
            }
        }
        List<double[]> x = new ArrayList<>();
        List<Boolean> y = new ArrayList<>();
        fitted.forEach(e -> e.addTo(x, y));
        boolean[] labels = new boolean[y.size()];
        for (int i = 0; i < labels.length; i++) {
            labels[i] = y.get(i);
        }
        double[][] features = x.toArray(new double[0][]);
        LogisticFit.Model fit = LogisticFit.fit(features, labels, l2, iterations);
        double[] weights = Arrays.copyOf(fit.weights(), NeighbourhoodAgreement.FEATURES + 1);
        weights[NeighbourhoodAgreement.FEATURES] = fit.bias();
        double[] calibration = calibrate(weights, features, labels);
        System.out.printf(Locale.ROOT, "%d examples; log loss %.4f%n", features.length,
                LogisticFit.logLoss(fit, features, labels));
        System.out.println("private static final double[] WEIGHTS = " + javaArray(weights));
        System.out.println("private static final double[] CALIBRATED = " + javaArray(calibration));
        if (heldOut != null) {
            System.out.println("held out (" + heldOut.queries() + " queries), served at probability >= p:");
            ToDoubleFunction<double[]> refit = f -> NeighbourhoodAgreement.calibrated(
                    NeighbourhoodAgreement.regression(weights, f), calibration);
            for (double p : new double[] {0.95, 0.98, 0.99, 0.995}) {
                System.out.println(String.format(Locale.ROOT, "  p>=%.3f fitted: ", p) + heldOut.served(refit, p)
                        + "; shipped: " + heldOut.served(NeighbourhoodAgreement::probability, p));
            }
        }
        return 0;
    }

    /**
     * The share of right examples in each bin of the regression's probability, made non-decreasing by pooling
     * adjacent bins that are not (isotonic regression over the bins) and shrunk towards one half by one right and
     * one wrong example, so a bin of few examples is never sure; NaN for a bin without examples.
     */
    static double[] calibrate(double[] weights, double[][] x, boolean[] y) {
        int bins = ProbabilityBins.COUNT;
        double[] right = new double[bins];
        double[] total = new double[bins];
        for (int i = 0; i < x.length; i++) {
            int b = ProbabilityBins.of(NeighbourhoodAgreement.regression(weights, x[i]));
            total[b]++;
            right[b] += y[i] ? 1 : 0;
        }
        // Pool adjacent violators: blocks of bins, merged while a block's rate is below the one before it.
        List<int[]> blocks = new ArrayList<>(); // {first bin, last bin}
        List<double[]> sums = new ArrayList<>(); // {right, total}
        for (int b = 0; b < bins; b++) {
            if (total[b] == 0) {
                continue;
            }
            blocks.add(new int[] {b, b});
            sums.add(new double[] {right[b], total[b]});
            while (sums.size() > 1) {
                double[] last = sums.get(sums.size() - 1);
                double[] before = sums.get(sums.size() - 2);
                if (before[0] / before[1] <= last[0] / last[1]) {
                    break;
                }
                before[0] += last[0];
                before[1] += last[1];
                blocks.get(blocks.size() - 2)[1] = blocks.get(blocks.size() - 1)[1];
                blocks.remove(blocks.size() - 1);
                sums.remove(sums.size() - 1);
            }
        }
        double[] calibrated = new double[bins];
        Arrays.fill(calibrated, Double.NaN);
        for (int k = 0; k < blocks.size(); k++) {
            for (int b = blocks.get(k)[0]; b <= blocks.get(k)[1]; b++) {
                if (total[b] > 0) {
                    calibrated[b] = (sums.get(k)[0] + 1) / (sums.get(k)[1] + 2);
                }
            }
        }
        return calibrated;
    }

    /**
     * The weights and bins of a fit from this command's output (its {@code WEIGHTS = {...};} and {@code CALIBRATED =
     * {...};} lines), for {@code eval-semantic --agreement-fit}.
     */
    static double[][] readFit(Path output) throws java.io.IOException {
        double[] weights = null;
        double[] calibration = null;
        for (String line : java.nio.file.Files.readAllLines(output, java.nio.charset.StandardCharsets.UTF_8)) {
            int open = line.indexOf('{');
            int close = line.indexOf('}');
            if (open < 0 || close < open) {
                continue;
            }
            String[] parts = line.substring(open + 1, close).split(",");
            double[] values = new double[parts.length];
            for (int i = 0; i < parts.length; i++) {
                String v = parts[i].trim();
                values[i] = v.equals("Double.NaN") ? Double.NaN : Double.parseDouble(v);
            }
            if (line.contains(" WEIGHTS = ")) {
                weights = values;
            } else if (line.contains(" CALIBRATED = ")) {
                calibration = values;
            }
        }
        if (weights == null || calibration == null) {
            throw new IllegalArgumentException(output + " holds no WEIGHTS and CALIBRATED lines of fit-agreement");
        }
        return new double[][] {weights, calibration};
    }

    private static String javaArray(double[] values) {
        StringBuilder line = new StringBuilder("{");
        for (int i = 0; i < values.length; i++) {
            line.append(i == 0 ? "" : ", ").append(Double.isNaN(values[i]) ? "Double.NaN"
                    : String.format(Locale.ROOT, "%.4f", values[i]));
        }
        return line.append("};").toString();
    }

    /** Rows with their vectors. */
    private record Labelled(List<EvalTsv.Query> rows, float[][] vectors, List<String> texts) {

        static Labelled load(EmbeddingDiskCache cache, Path file, long seed, int offset, int limit) throws Exception {
            List<EvalTsv.Query> rows = EvalTsv.queries(file, seed, offset, limit);
            List<String> texts = rows.stream().map(EvalTsv.Query::text).toList();
            return new Labelled(rows, cache.embed(texts), texts);
        }

        /** An entry's answer: its intent, or its own for an out-of-scope row. Never {@code AnswerGroups.UNKNOWN}. */
        long group(int row) {
            EvalTsv.Query q = rows.get(row);
            return q.outOfScope() ? -1 - row : 1L + (q.intent().hashCode() & 0xffffffffL);
        }
    }

    /** Per query: each answer group among its neighbours, as features, and whether it is the query's answer. */
    private record Examples(List<List<double[]>> features, List<List<Boolean>> right) {

        static Examples of(Labelled entries, Labelled queries, boolean leaveOneOut) {
            ToLongFunction<String> groupOf = key -> entries.group(Integer.parseInt(key));
            List<List<double[]>> features = new ArrayList<>();
            List<List<Boolean>> right = new ArrayList<>();
            List<List<Neighbour>> all = IntStream.range(0, queries.rows().size()).parallel()
                    .mapToObj(i -> BruteForceNeighbours.nearestOthers(queries.vectors()[i], queries.texts().get(i),
                            entries.vectors(), entries.texts(), NeighbourhoodAgreement.NEIGHBOURS, leaveOneOut ? i : -1))
                    .toList();
            for (int i = 0; i < all.size(); i++) {
                EvalTsv.Query query = queries.rows().get(i);
                List<double[]> fx = new ArrayList<>();
                List<Boolean> fy = new ArrayList<>();
                Set<Long> seen = new HashSet<>();
                for (Neighbour n : all.get(i)) { // best first: the group's best member speaks for it
                    long group = groupOf.applyAsLong(n.entryKey());
                    if (n.similarity() < NeighbourhoodAgreement.FLOOR || !seen.add(group)) {
                        continue;
                    }
                    double[] f = NeighbourhoodAgreement.features(n, all.get(i), groupOf);
                    if (f != null) {
                        EvalTsv.Query cached = entries.rows().get(Integer.parseInt(n.entryKey()));
                        fx.add(f);
                        fy.add(!query.outOfScope() && query.intent().equals(cached.intent()));
                    }
                }
                features.add(fx);
                right.add(fy);
            }
            return new Examples(features, right);
        }

        int queries() {
            return features.size();
        }

        void addTo(List<double[]> x, List<Boolean> y) {
            features.forEach(x::addAll);
            right.forEach(y::addAll);
        }

        /** Hits and wrong hits when each query is served its most probable group at or above {@code min}. */
        String served(ToDoubleFunction<double[]> model, double min) {
            long hits = 0;
            long wrong = 0;
            for (int i = 0; i < features.size(); i++) {
                double best = -1;
                boolean bestRight = false;
                for (int j = 0; j < features.get(i).size(); j++) {
                    double p = model.applyAsDouble(features.get(i).get(j));
                    if (p > best) {
                        best = p;
                        bestRight = right.get(i).get(j);
                    }
                }
                if (best >= min) {
                    hits++;
                    wrong += bestRight ? 0 : 1;
                }
            }
            return String.format(Locale.ROOT, "hits %.1f%%, wrong %.2f%% of them", 100.0 * hits / Math.max(1, queries()),
                    hits == 0 ? 0.0 : 100.0 * wrong / hits);
        }
    }
}
