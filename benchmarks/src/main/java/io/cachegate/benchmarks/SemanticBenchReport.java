package io.cachegate.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.bench.BenchReport;
import io.cachegate.bench.LatencySummary;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * What {@code bench semantic} prints: each part's figures, its baseline from the same run, the ratio or
 * difference, and whether the target is met. A part not run is {@code null}. Pure formatting.
 */
record SemanticBenchReport(int cores, SemanticLatencyBench.Result latency, Embedder embedder, List<Search> search)
        implements ScenarioReport {

    static final double ADDED_P50_TARGET_MS = 5;
    static final double ADDED_P99_TARGET_MS = 15;
    static final double EMBEDDER_RATIO_TARGET = 0.90;
    static final double SEARCH_P99_TARGET_MS = 2;

    /** The raw ONNX loop at one batch size: texts/s and the median call time (ms) of each round. */
    record Raw(int batch, List<Double> rounds, List<Double> p50CallMs) {
        double median() {
            return Medians.of(rounds.stream().mapToDouble(Double::doubleValue));
        }

        double medianP50CallMs() {
            return Medians.of(p50CallMs.stream().mapToDouble(Double::doubleValue));
        }
    }

    /** The micro-batching embedder with one setting: texts/s of each round. */
    record Batched(EmbedderThroughputBench.Variant variant, boolean isDefault, List<Double> rounds) {
        double median() {
            return Medians.of(rounds.stream().mapToDouble(Double::doubleValue));
        }
    }

    /** Part 2's figures. */
    record Embedder(String modelId, int callers, double seconds, List<Raw> raw, List<Batched> batched) {

        /** The raw loop at the variant's batch size. */
        double rawSameBatch(Batched b) {
            return raw.stream().filter(r -> r.batch() == b.variant().maxBatch()).mapToDouble(Raw::median)
                    .findFirst().orElse(Double.NaN);
        }

        double bestRaw() {
            return raw.stream().mapToDouble(Raw::median).max().orElse(Double.NaN);
        }

        Batched best() {
            return batched.stream().max((a, b) -> Double.compare(a.median(), b.median())).orElseThrow();
        }
    }

    /** Part 3's figures for one scope layout. */
    record Search(VectorSearchBench.Result result) {
    }

    @Override
    public String failure() {
        return latency != null && latency.errors() > 0 ? latency.errors() + " request errors" : null;
    }

    @Override
    public String toText() {
        ReportText out = new ReportText();
        out.line("Semantic cache benchmark, %d cores", cores);
        if (latency != null) {
            latencyText(out);
        }
        if (embedder != null) {
            embedderText(out);
        }
        if (search != null) {
            searchText(out);
        }
        return out.toString();
    }

    private void latencyText(ReportText out) {
        SemanticLatencyBench.Result l = latency;
        out.line("");
        out.line("1. Added latency of the semantic layer on misses: open loop at %.0f distinct requests/s, "
                + "simulator at %d ms to first token, speculative upstream %s, %d rounds of %ss (median of per-round "
                + "differences)", l.settings().rate(), l.settings().simTtftMs(), l.settings().speculative() ? "on" : "off",
                l.rounds().size(), l.settings().duration().toMillis() / 1000.0);
        out.line("%-22s %9s %9s %9s %9s %8s %8s", "", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "errors", "backend");
        for (int i = 0; i < l.rounds().size(); i++) {
            SemanticLatencyBench.Round r = l.rounds().get(i);
            latencyRow(out, "round " + (i + 1) + " semantic off", r.off(), r.offBackendCalls());
            latencyRow(out, "round " + (i + 1) + " semantic on", r.on(), r.onBackendCalls());
            LatencySummary off = r.off().total();
            LatencySummary on = r.on().total();
            out.line("%-22s %9.3f %9.3f %9.3f %9.3f", "round " + (i + 1) + " added", on.p50Ms() - off.p50Ms(),
                    on.p90Ms() - off.p90Ms(), on.p99Ms() - off.p99Ms(), on.p999Ms() - off.p999Ms());
        }
        double p50 = l.medianAdded(b -> b.total().p50Ms());
        double p99 = l.medianAdded(b -> b.total().p99Ms());
        out.line("Baseline (semantic off), median: p50 %.3f ms, p99 %.3f ms; semantic on: p50 %.3f ms, p99 %.3f ms",
                l.medianOff(b -> b.total().p50Ms()), l.medianOff(b -> b.total().p99Ms()),
                l.medianOn(b -> b.total().p50Ms()), l.medianOn(b -> b.total().p99Ms()));
        out.line("Added: p50 %.3f ms (target <= %.0f: %s), p99 %.3f ms (target <= %.0f: %s)", p50,
                ADDED_P50_TARGET_MS, met(p50 <= ADDED_P50_TARGET_MS), p99, ADDED_P99_TARGET_MS,
                met(p99 <= ADDED_P99_TARGET_MS));
        out.line("Inside the semantic gateway, measured rounds (bucket bounds): embed p50 <= %.2f ms, p99 <= %.2f ms; "
                + "search p50 <= %.2f ms, p99 <= %.2f ms", l.embedP50Ms(), l.embedP99Ms(), l.searchP50Ms(), l.searchP99Ms());
        out.line("Measured requests answered without a backend call (hits): %d; semantic gateway lookups over the run: %s",
                l.servedWithoutBackend(), l.lookups());
    }

    private static void latencyRow(ReportText out, String label, BenchReport r, long backend) {
        LatencySummary s = r.total();
        out.line("%-22s %9.3f %9.3f %9.3f %9.3f %8d %8d", label, s.p50Ms(), s.p90Ms(), s.p99Ms(), s.p999Ms(),
                r.errors(), backend);
    }

    private void embedderText(ReportText out) {
        Embedder e = embedder;
        out.line("");
        out.line("2. Embedder throughput, model %s in this process: %d concurrent single-text callers vs one "
                + "thread calling the model directly; %d round(s) of %.0fs, medians", e.modelId(), e.callers(),
                e.raw().get(0).rounds().size(), e.seconds());
        out.line("%-52s %10s %14s %12s %8s", "", "texts/s", "vs raw same b.", "vs best raw", ">= 90%");
        for (Raw r : e.raw()) {
            out.line("%-52s %10.1f %14s %12.2f %8s", "raw ONNX loop, batch " + r.batch() + String.format(
                    java.util.Locale.ROOT, " (call p50 %.2f ms)", r.medianP50CallMs()), r.median(), "-",
                    r.median() / e.bestRaw(), "-");
        }
        for (Batched b : e.batched()) {
            double same = b.median() / e.rawSameBatch(b);
            out.line("%-52s %10.1f %14.2f %12.2f %8s", "embedder " + label(b.variant()) + (b.isDefault() ? " (default)" : ""),
                    b.median(), same, b.median() / e.bestRaw(), met(same >= EMBEDDER_RATIO_TARGET));
        }
        Batched best = e.best();
        out.line("Best setting: %s at %.1f texts/s (%.2f of the best raw loop)", label(best.variant()), best.median(),
                best.median() / e.bestRaw());
    }

    static String label(EmbedderThroughputBench.Variant v) {
        return "max_batch " + v.maxBatch() + ", workers " + v.workers() + ", intra " + v.settings().effectiveIntraOpThreads();
    }

    private void searchText(ReportText out) {
        out.line("");
        out.line("3. Lucene search latency, unit vectors of dimension %d stored (random, or clustered around topics), "
                + "scope-filtered top-k, one at a time through the index's async API, after a reopen; \"+ writes\": an add "
                + "after every N searches; queries random (drawn like the entries, near none), or near (a stored entry at "
                + "cosine %.2f; found: how often it was among the k, the recall that makes a hit); cpu: the process's CPU "
                + "time a search, steadier than latency on a loaded machine",
                VectorSearchBench.DIMENSION, VectorSearchBench.NEAR_COSINE);
        out.line("%-19s %-9s %-7s %8s %7s %4s %8s %7s %9s %9s %9s %9s %9s %7s %7s %9s", "variant", "vectors", "queries",
                "entries", "scopes", "k", "load s", "write/N", "searches", "p50 ms", "p99 ms", "p99.9 ms", "max ms", "found", "cpu ms", "p99<=2ms");
        for (Search s : search) {
            VectorSearchBench.Result r = s.result();
            out.line("%-19s %-9s %-7s %8d %7d %4d %8.1f %7s %9d %9.3f %9.3f %9.3f %9.3f %7s %7.3f %9s", r.label(), r.vectors(),
                    r.queryKind(), r.entries(), r.scopes(), r.k(), r.loadSeconds(), r.writeEvery() == 0 ? "-" : Integer.toString(r.writeEvery()),
                    r.queries(), r.p50Ms(), r.p99Ms(), r.p999Ms(), r.maxMs(),
                    Double.isNaN(r.foundNear()) ? "-" : String.format("%.1f%%", 100 * r.foundNear()), r.cpuMsPerSearch(),
                    met(r.p99Ms() <= SEARCH_P99_TARGET_MS));
        }
    }

    @Override
    public JsonNode json() {
        ObjectNode root = BenchJson.object().put("cores", cores);
        if (latency != null) {
            SemanticLatencyBench.Result l = latency;
            ObjectNode n = root.putObject("latency");
            n.put("rate", l.settings().rate()).put("durationSeconds", l.settings().duration().toMillis() / 1000.0)
                    .put("speculativeUpstream", l.settings().speculative()).put("simulatorTtftMs", l.settings().simTtftMs());
            ArrayNode rounds = n.putArray("rounds");
            for (SemanticLatencyBench.Round r : l.rounds()) {
                ObjectNode round = rounds.addObject();
                round.set("off", BenchJson.tree(r.off()));
                round.set("on", BenchJson.tree(r.on()));
                round.put("offBackendCalls", r.offBackendCalls()).put("onBackendCalls", r.onBackendCalls());
            }
            ToDoubleFunction<BenchReport> p50 = b -> b.total().p50Ms();
            ToDoubleFunction<BenchReport> p99 = b -> b.total().p99Ms();
            n.put("offP50Ms", l.medianOff(p50)).put("offP99Ms", l.medianOff(p99))
                    .put("onP50Ms", l.medianOn(p50)).put("onP99Ms", l.medianOn(p99))
                    .put("addedP50Ms", l.medianAdded(p50)).put("addedP99Ms", l.medianAdded(p99))
                    .put("addedP50Met", l.medianAdded(p50) <= ADDED_P50_TARGET_MS)
                    .put("addedP99Met", l.medianAdded(p99) <= ADDED_P99_TARGET_MS)
                    .put("embedP50Ms", l.embedP50Ms()).put("embedP99Ms", l.embedP99Ms())
                    .put("searchP50Ms", l.searchP50Ms()).put("searchP99Ms", l.searchP99Ms())
                    .put("servedWithoutBackend", l.servedWithoutBackend()).put("errors", l.errors());
            ObjectNode lookups = n.putObject("lookups");
            l.lookups().forEach(lookups::put);
        }
        if (embedder != null) {
            ObjectNode n = root.putObject("embedder");
            n.put("model", embedder.modelId()).put("callers", embedder.callers()).put("seconds", embedder.seconds()).put("bestRaw", embedder.bestRaw());
            ArrayNode raw = n.putArray("raw");
            for (Raw r : embedder.raw()) {
                ObjectNode o = raw.addObject().put("batch", r.batch()).put("median", r.median())
                        .put("p50CallMs", r.medianP50CallMs());
                r.rounds().forEach(o.putArray("rounds")::add);
            }
            ArrayNode batched = n.putArray("batched");
            for (Batched b : embedder.batched()) {
                ObjectNode o = batched.addObject().put("maxBatch", b.variant().maxBatch())
                        .put("workers", b.variant().workers())
                        .put("intraOpThreads", b.variant().settings().effectiveIntraOpThreads())
                        .put("default", b.isDefault()).put("median", b.median())
                        .put("ratioSameBatch", b.median() / embedder.rawSameBatch(b))
                        .put("ratioBestRaw", b.median() / embedder.bestRaw());
                b.rounds().forEach(o.putArray("rounds")::add);
            }
        }
        if (search != null) {
            ArrayNode n = root.putArray("search");
            for (Search s : search) {
                ObjectNode o = (ObjectNode) BenchJson.tree(s.result());
                o.put("p99Met", s.result().p99Ms() <= SEARCH_P99_TARGET_MS);
                n.add(o);
            }
        }
        return root;
    }

    private static String met(boolean ok) {
        return ok ? "met" : "NOT met";
    }
}
