package io.cachegate.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.cachegate.cache.semantic.ClassSpending;
import io.cachegate.cache.semantic.ClassWatch;
import io.cachegate.cache.semantic.LearnedDecision;
import io.cachegate.cache.semantic.MicroBatchingEmbedder;
import io.cachegate.cache.semantic.PairGuard;
import io.cachegate.config.SemanticCacheSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * {@code eval-semantic --replay}: labelled streams ({@link BudgetStreams}) replayed through the error budget
 * ({@link BudgetReplay}) at each budget, under the anytime bound and under the point estimate, with the shipped or
 * another agreement fit: how the leave-one-dataset-out table of docs/caches.md is made.
 */
final class ReplayOptions {

    @Option(names = "--replay", split = ",", paramLabel = "STREAM",
            description = "Replay streams through the error budget instead (cache from empty, audits, explorations, "
                    + "last half measured): banking77, clinc150, qqp, mrpc, sick; :merged or :split change an "
                    + "intent set's answers; @OFFSET skips rows of the shuffle. Data from --data.")
    List<String> streams;

    @Option(names = "--data", paramLabel = "DIR", defaultValue = "../shared/data",
            description = "Where --replay finds its files (default ${DEFAULT-VALUE}).")
    Path data;

    @Option(names = "--budgets", split = ",", defaultValue = "0.005,0.01,0.02",
            description = "Budgets --replay runs at (default ${DEFAULT-VALUE}).")
    List<Double> budgets;

    @Option(names = "--deltas", split = ",", defaultValue = "0.05,0",
            description = "--replay's bounds: the anytime bound at each delta; 0 is the point estimate "
                    + "(default ${DEFAULT-VALUE}).")
    List<Double> deltas;

    @Option(names = "--classes", split = ",", defaultValue = "nested,bin",
            description = "--replay's classes under a bound: nested (a bin of the prior with those above it) or bin "
                    + "(each bin alone) (default ${DEFAULT-VALUE}).")
    List<String> classes;

    @Option(names = "--spending", split = ",", defaultValue = "default",
            description = "How --replay's nested classes share delta: default (the gateway's: bonferroni), bonferroni "
                    + "(delta / 20 each), chained (classes 4-12 handed down a chain, the prior's mean at a third of the "
                    + "budget), or WEIGHTS[/chain|/flat][/prior=S] with WEIGHTS uniform, top=J, band=A-B, rel=A..B or "
                    + "geometric=R (default ${DEFAULT-VALUE}).")
    List<String> spending;

    @Option(names = "--watch", split = ",", defaultValue = "default",
            description = "What an open nested class must keep showing to stay open (each replayed): off, close (a "
                    + "drift test on its verdicts since opening, delta 0.05), close=DELTA, window=C (the bound over "
                    + "its newest C / budget verdicts as well), parts joined by '/'; default: the gateway's.")
    List<String> watch;

    @Option(names = "--polarity", description = "--replay with the polarity guard as a veto as well (a lever "
            + "measured: enable/disable, lock/unlock, ...).")
    boolean polarity;

    @Option(names = "--restarts", split = ",", defaultValue = "none",
            description = "A gateway restart halfway through each --replay stream (the index kept), each replayed: "
                    + "none, lose (the error budget's evidence forgotten) or keep (written and read back, as a "
                    + "gateway with the embedded index does) (default ${DEFAULT-VALUE}).")
    List<String> restarts;

    @Option(names = "--fleets", split = ",", defaultValue = "1",
            description = "Gateways over one shared index (Qdrant's), the requests dealt to them in turn, each "
                    + "replayed: N (each with evidence of its own) or N:shared (cache.fleet.share_evidence) "
                    + "(default ${DEFAULT-VALUE}).")
    List<String> fleets;

    @Option(names = "--stream-limit", defaultValue = "4000", description = "Requests per --replay stream (default ${DEFAULT-VALUE}).")
    int streamLimit;

    @Option(names = "--stream-seed", paramLabel = "SEED",
            description = "Shuffle each --replay stream's rows (those its @OFFSET leaves, before --stream-limit) again "
                    + "with this seed: another order of the same rows, e.g. 2,400 of clinc150val or banking77@8000 "
                    + "in an order no run was measured on (default: the --seed shuffle's order).")
    Long streamSeed;

    @Option(names = "--agreement-fit", paramLabel = "FILE",
            description = "--replay with another agreement fit: the output of fit-agreement (its WEIGHTS and "
                    + "CALIBRATED lines); default the shipped fit.")
    Path agreementFit;

    @Option(names = "--audit-rate", defaultValue = "0.05", description = "Share of --replay's hits audited (default ${DEFAULT-VALUE}).")
    double auditRate;

    /** Each stream through the error budget at each budget and bound; 2 on a usage error. */
    int run(EmbedderModelOptions model, Path cacheDir, Double threshold, long seed, boolean json) throws Exception {
        SemanticCacheSettings.EmbedderSettings settings;
        try {
            settings = model.settings();
        } catch (IllegalArgumentException e) {
            System.err.println("eval-semantic: " + e.getMessage());
            return 2;
        }
        double t = threshold != null ? threshold : SemanticCacheSettings.defaults().threshold();
        List<BudgetStreams.Stream> loaded = new ArrayList<>();
        double[][] fit;
        List<ClassSpending.Plan> plans = new ArrayList<>();
        List<ClassWatch> watches = new ArrayList<>();
        List<BudgetReplay.Restart> restartKinds = new ArrayList<>();
        List<BudgetReplay.Fleet> fleetKinds = new ArrayList<>();
        try {
            for (String spec : fleets) {
                fleetKinds.add(BudgetReplay.Fleet.parse(spec));
            }
            for (String spec : restarts) {
                try {
                    restartKinds.add(BudgetReplay.Restart.valueOf(spec.toUpperCase(java.util.Locale.ROOT)));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("--restarts are none, lose or keep, not '" + spec + "'");
                }
            }
            for (String spec : watch) {
                watches.add(ClassWatch.parse(spec));
            }
            for (String spec : spending) {
                plans.add(ClassSpending.Plan.parse(spec));
            }
            for (String spec : streams) {
                loaded.add(BudgetStreams.load(data, spec, seed, streamSeed, streamLimit));
            }
            fit = agreementFit == null ? null : FitAgreementCommand.readFit(agreementFit);
            for (String kind : classes) {
                if (!kind.equals("nested") && !kind.equals("bin")) {
                    throw new IllegalArgumentException("--classes are nested or bin, not '" + kind + "'");
                }
            }
            if (fleetKinds.stream().anyMatch(f -> f.gateways() > 1)
                    && restartKinds.stream().anyMatch(r -> r != BudgetReplay.Restart.NONE)) {
                throw new IllegalArgumentException("--restarts are replayed for one gateway: not with --fleets");
            }
        } catch (IllegalArgumentException | java.io.IOException e) { // NumberFormatException included
            System.err.println("eval-semantic: " + e.getMessage());
            return 2;
        }
        List<Map<String, Object>> rows = new ArrayList<>();
        try (MicroBatchingEmbedder embedder = MicroBatchingEmbedder.start(settings)) {
            embedder.warmedUp().join();
            EmbeddingDiskCache vectors = new EmbeddingDiskCache(embedder, EmbeddingDiskCache.root(cacheDir));
            System.out.println("model " + embedder.modelId() + ", threshold " + t + ", audit rate " + auditRate
                    + ", seed " + seed + (streamSeed == null ? "" : ", stream seed " + streamSeed) + (polarity ? ", polarity guard" : "") + ", agreement fit " + (agreementFit == null ? "shipped" : agreementFit)
                    + "; hits and wrong among them, whole stream | last half");
            for (BudgetStreams.Stream stream : loaded) {
                String spec = stream.name();
                float[][] v = vectors.embed(stream.texts());
                List<BudgetReplay.Item> items = new ArrayList<>();
                for (int i = 0; i < v.length; i++) {
                    items.add(new BudgetReplay.Item(stream.texts().get(i), stream.answers().get(i), v[i]));
                }
                BudgetReplay replayed = new BudgetReplay(items);
                for (double budget : budgets) {
                    for (double delta : deltas) {
                        for (Variant variant : variants(delta, plans, watches, restartKinds, fleetKinds)) {
                            BudgetReplay.Result r = replayed.run(budget, delta, variant.plan(), variant.watch(),
                                    auditRate, polarity ? LearnedDecision.bundled(t, List.of(PairGuard.polarity()))
                                            : LearnedDecision.bundled(t), seed, fit,
                                    variant.restart(), items.size() / 2, variant.fleet());
                            rows.add(row(spec, budget, variant.rule(), r, json));
                        }
                    }
                }
            }
        }
        if (json) {
            System.out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(rows));
        }
        return 0;
    }

    /**
     * One way to replay at a delta: the classes' plan (null: each bin alone) and watch, the restart, the fleet, the
     * row's name.
     */
    private record Variant(ClassSpending.Plan plan, ClassWatch watch, BudgetReplay.Restart restart,
                           BudgetReplay.Fleet fleet, String rule) {
    }

    /** Every variant asked for at {@code delta}: the point estimate at 0, else each kind of classes, plan and watch. */
    private List<Variant> variants(double delta, List<ClassSpending.Plan> plans, List<ClassWatch> watches,
                                   List<BudgetReplay.Restart> restartKinds, List<BudgetReplay.Fleet> fleetKinds) {
        List<Variant> out = new ArrayList<>();
        for (String kind : delta == 0 ? List.of("estimate") : classes) {
            boolean nested = kind.equals("nested");
            for (int p = 0; p < (nested ? plans.size() : 1); p++) {
                for (int w = 0; w < (nested ? watches.size() : 1); w++) {
                    for (BudgetReplay.Restart restart : restartKinds) {
                        for (BudgetReplay.Fleet fleet : fleetKinds) {
                            String rule = delta == 0 ? kind : nested && plans.size() > 1
                                    ? "nested " + spending.get(p) + " " + delta : kind + " " + delta;
                            if (nested && watches.size() > 1) {
                                rule += " watch " + watch.get(w);
                            }
                            if (restart != BudgetReplay.Restart.NONE) {
                                rule += " restart " + restart.name().toLowerCase(java.util.Locale.ROOT);
                            }
                            if (!fleet.equals(BudgetReplay.Fleet.ONE)) {
                                rule += " fleet " + fleet.label();
                            }
                            out.add(new Variant(nested ? plans.get(p) : null,
                                    nested ? watches.get(w) : ClassWatch.OFF, restart, fleet, rule));
                        }
                    }
                }
            }
        }
        return out;
    }

    /** One replay's figures as a row of the JSON report, printed as a line unless {@code --json}. */
    private static Map<String, Object> row(String spec, double budget, String rule, BudgetReplay.Result r,
                                           boolean json) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("stream", spec);
        row.put("budget", budget);
        row.put("rule", rule);
        row.put("requests", r.requests());
        row.put("hits", r.hits());
        row.put("wrong", r.wrong());
        row.put("last_half_hits", r.lastHits());
        row.put("last_half_wrong", r.lastWrong());
        row.put("watch_closings", r.closings());
        row.put("hit_rate", round(r.hitRate()));
        row.put("wrong_rate", round(r.wrongRate()));
        row.put("last_half_hit_rate", round(r.lastHitRate()));
        row.put("last_half_wrong_rate", round(r.lastWrongRate()));
        row.put("audits", r.audits());
        row.put("explored", r.explored());
        row.put("bin_verdicts", r.binVerdicts());
        row.put("bin_hits", r.binHits());
        row.put("first_half_bin_verdicts", r.firstHalfVerdicts());
        if (!json) {
            boolean over = r.wrongRate() > budget || r.lastWrongRate() > budget;
            System.out.println(String.format(Locale.ROOT, "%-18s budget %.3f %-28s n %5d: %5.1f%% / %5.2f%% | "
                            + "%5.1f%% / %5.2f%%%s (audits %d, explored %d)", spec, budget, rule, r.requests(),
                    100 * r.hitRate(), 100 * r.wrongRate(), 100 * r.lastHitRate(), 100 * r.lastWrongRate(),
                    over ? " OVER" : "", r.audits(), r.explored()));
        }
        return row;
    }

    private static double round(double value) {
        return Math.round(value * 10_000) / 10_000.0;
    }
}
