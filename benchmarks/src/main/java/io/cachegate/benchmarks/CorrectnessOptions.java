package io.cachegate.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Option;

/** The options of {@code bench semantic --part correctness}: the labelled streams and the decisions to compare. */
final class CorrectnessOptions {

    @Option(names = "--warm", defaultValue = "../shared/data/banking77_train.tsv", paramLabel = "TSV",
            description = "correctness: labelled texts (text<TAB>label, a header) that warm the cache "
                    + "(default ${DEFAULT-VALUE}).")
    Path warm;

    @Option(names = "--warm-offset", defaultValue = "0", description = "correctness: warm rows to skip after the "
            + "seeded shuffle (default ${DEFAULT-VALUE}).")
    int warmOffset;

    @Option(names = "--warm-limit", defaultValue = "8000", description = "correctness: warm rows (default ${DEFAULT-VALUE}).")
    int warmLimit;

    @Option(names = "--query-tsv", defaultValue = "../shared/data/banking77_train.tsv", paramLabel = "TSV",
            description = "correctness: labelled texts replayed after the warm stream; the same file as --warm with "
                    + "a disjoint range is fine (default ${DEFAULT-VALUE}).")
    Path queries;

    @Option(names = "--query-offset", defaultValue = "8000", description = "correctness: query rows to skip after "
            + "the seeded shuffle (default ${DEFAULT-VALUE}).")
    int queryOffset;

    @Option(names = "--query-limit", defaultValue = "3000", description = "correctness: query rows (default ${DEFAULT-VALUE}).")
    int queryLimit;

    @Option(names = "--seed", defaultValue = "42", description = "correctness: shuffle seed of both files (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--concurrency", defaultValue = "4", description = "correctness: requests in flight; the "
            + "streams keep their order otherwise (default ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(names = "--static-threshold", defaultValue = "0.92", description = "correctness: threshold of the static "
            + "learned decision; 0 leaves it out (default ${DEFAULT-VALUE}).")
    double staticThreshold;

    @Option(names = "--cosine-thresholds", split = ",", defaultValue = "0.95,0.97", description = "correctness: "
            + "bare cosine decisions to compare, to find the threshold of equal wrong-hit rate; 0 for none "
            + "(default ${DEFAULT-VALUE}).")
    List<Double> cosineThresholds;

    @Option(names = "--budgets", split = ",", defaultValue = "0.01,0.02,0.05",
            description = "correctness: cache.semantic.max_error_rate values (default ${DEFAULT-VALUE}).")
    List<Double> budgets;

    @Option(names = "--budget-threshold", defaultValue = "0.92", description = "correctness: the threshold (floor) of "
            + "the budgeted decisions (default ${DEFAULT-VALUE}).")
    double budgetThreshold;

    /** The static learned decision, the cosine ones, then the budgets. */
    List<SemanticCorrectnessBench.Variant> variants() {
        List<SemanticCorrectnessBench.Variant> out = new ArrayList<>();
        if (staticThreshold > 0) {
            out.add(new SemanticCorrectnessBench.Variant(String.format(Locale.ROOT, "learned %.2f", staticThreshold),
                    String.format(Locale.ROOT, "decision: learned, threshold: %s, max_error_rate: 0", staticThreshold)));
        }
        for (double t : cosineThresholds.stream().filter(t -> t > 0).toList()) {
            out.add(new SemanticCorrectnessBench.Variant(String.format(Locale.ROOT, "cosine %.2f", t),
                    String.format(Locale.ROOT, "decision: cosine, threshold: %s", t)));
        }
        for (double b : budgets) {
            out.add(new SemanticCorrectnessBench.Variant(String.format(Locale.ROOT, "budget %.2f", b),
                    String.format(Locale.ROOT, "threshold: %s, max_error_rate: %s", budgetThreshold, b)));
        }
        return out;
    }

    void check(List<String> problems) {
        for (Path p : List.of(warm, queries)) {
            if (!Files.isReadable(p)) {
                problems.add("cannot read " + p + " (--warm / --query-tsv)");
            }
        }
        if (warmOffset < 0 || queryOffset < 0 || warmLimit < 1 || queryLimit < 2 || concurrency < 1) {
            problems.add("--warm-offset and --query-offset must be >= 0, --warm-limit >= 1, --query-limit >= 2, "
                    + "--concurrency >= 1");
        }
        if (!(staticThreshold >= 0 && staticThreshold <= 1)) {
            problems.add("--static-threshold must be in (0, 1], or 0 to leave it out (was " + staticThreshold + ")");
        }
        for (double b : budgets) {
            if (!(b > 0 && b < 0.5)) {
                problems.add("--budgets must each be in (0, 0.5) (was " + b + ")");
            }
        }
        for (double t : cosineThresholds) {
            if (!(t >= 0 && t <= 1)) {
                problems.add("--cosine-thresholds must each be in (0, 1], or 0 for none (was " + t + ")");
            }
        }
    }
}
