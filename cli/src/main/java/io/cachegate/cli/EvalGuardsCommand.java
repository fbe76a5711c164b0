package io.cachegate.cli;

import io.cachegate.cache.semantic.PairGuard;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cachegate eval-guards}: how often each pair guard vetoes labelled pairs, on their text alone. A veto of
 * a positive pair (the two texts ask the same thing) is a hit the guard costs at any threshold; a veto of a
 * negative one is a wrong hit it may prevent. No model is loaded, so a whole file takes seconds.
 */
@Command(name = "eval-guards", mixinStandardHelpOptions = true,
        description = {"Share of labelled pairs (TSV text_a, text_b, label with a header) each semantic-cache guard "
                + "vetoes: positives (hits it costs) and negatives (wrong hits it may prevent). 'vetoes' is the "
                + "default learned decision's hard vetoes together (numbers, identifiers, negation)."})
final class EvalGuardsCommand implements Callable<Integer> {

    private static final List<PairGuard> VETOES = List.of(PairGuard.numbers(), PairGuard.identifiers(),
            PairGuard.negation());

    @Option(names = "--pairs", paramLabel = "FILE", required = true, description = "Labelled pairs; repeatable.")
    List<Path> pairs;

    @Option(names = "--offset", defaultValue = "0", description = "Pairs to skip first (default ${DEFAULT-VALUE}).")
    int offset;

    @Option(names = "--limit", defaultValue = "" + Integer.MAX_VALUE, description = "Pairs per file (default: all).")
    int limit;

    @Option(names = "--examples", paramLabel = "N", defaultValue = "0",
            description = "Print up to N vetoed positive pairs of the --guard (default ${DEFAULT-VALUE}).")
    int examples;

    @Option(names = "--guard", defaultValue = "identifiers",
            description = "The guard whose vetoed positives --examples prints (default ${DEFAULT-VALUE}).")
    String exampleGuard;

    @Override
    public Integer call() throws Exception {
        PairGuard shown;
        try {
            shown = PairGuard.named(exampleGuard);
        } catch (IllegalArgumentException e) {
            System.err.println("eval-guards: " + e.getMessage());
            return 2;
        }
        System.out.println(String.format(Locale.ROOT, "%-28s %8s %8s  %s", "file", "pos", "neg",
                "vetoed positives / negatives per guard"));
        for (Path file : pairs) {
            List<EvalTsv.Pair> rows = EvalTsv.pairs(file, 0, offset, limit);
            StringBuilder line = new StringBuilder();
            long positives = rows.stream().filter(EvalTsv.Pair::same).count();
            for (PairGuard guard : PairGuard.all()) {
                line.append(share(guard.name(), rows, positives, List.of(guard)));
            }
            line.append(share("vetoes", rows, positives, VETOES));
            System.out.println(String.format(Locale.ROOT, "%-28s %8d %8d %s", file.getFileName(), positives,
                    rows.size() - positives, line));
            int printed = 0;
            for (EvalTsv.Pair p : rows) {
                if (printed < examples && p.same() && shown.rejects(p.textA(), p.textB())) {
                    System.out.println("  " + shown.name() + " vetoes: " + p.textA() + "  |  " + p.textB());
                    printed++;
                }
            }
        }
        return 0;
    }

    /** "  name 106 0.71% / 940 3.90%": how many and what share of positive and negative pairs that any of the guards rejects. */
    private static String share(String name, List<EvalTsv.Pair> rows, long positives, List<PairGuard> guards) {
        long vetoedPositives = 0;
        long vetoedNegatives = 0;
        for (EvalTsv.Pair p : rows) {
            if (guards.stream().anyMatch(g -> g.rejects(p.textA(), p.textB()))) {
                if (p.same()) {
                    vetoedPositives++;
                } else {
                    vetoedNegatives++;
                }
            }
        }
        long negatives = rows.size() - positives;
        return String.format(Locale.ROOT, "  %s %d %.2f%% / %d %.2f%%", name, vetoedPositives,
                percent(vetoedPositives, positives), vetoedNegatives, percent(vetoedNegatives, negatives));
    }

    private static double percent(long part, long whole) {
        return whole == 0 ? 0 : 100.0 * part / whole;
    }
}
