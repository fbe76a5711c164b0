package io.cachegate.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.bench.BenchReport;
import io.cachegate.bench.LatencySummary;
import io.cachegate.config.Durations;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;

/**
 * What {@code bench exact-cache} prints: hit throughput and latency of every target in every round, the
 * medians and ratios against nginx, and whether every measured request was a hit. Pure formatting.
 */
final class ExactCacheReport implements ScenarioReport {

    private final BenchExactCacheCommand run;
    private final Map<BenchExactCacheCommand.Target, List<BenchReport>> closed;
    private final Map<BenchExactCacheCommand.Target, List<BenchReport>> open;
    private final Map<String, Long> backendCalls;
    private final Map<String, Map<String, Integer>> after;
    private final Map<String, Map<String, Long>> lookups;
    private final double openRate;
    private final boolean autoRate;
    private final String nginxNote;
    private final List<byte[]> bodies;
    private final String redisUri;
    private final BenchExactCacheCommand.Target nginx;

    ExactCacheReport(BenchExactCacheCommand run, Map<BenchExactCacheCommand.Target, List<BenchReport>> closed,
                     Map<BenchExactCacheCommand.Target, List<BenchReport>> open, Map<String, Long> backendCalls,
                     Map<String, Map<String, Integer>> after, Map<String, Map<String, Long>> lookups, double openRate,
                     boolean autoRate, String nginxNote, List<byte[]> bodies, String redisUri) {
        this.run = run;
        this.closed = closed;
        this.open = open;
        this.backendCalls = backendCalls;
        this.after = after;
        this.lookups = lookups;
        this.openRate = openRate;
        this.autoRate = autoRate;
        this.nginxNote = nginxNote;
        this.bodies = bodies;
        this.redisUri = redisUri;
        // with several --api, the first API's nginx target is the reference
        this.nginx = closed.keySet().stream().filter(t -> t.name().startsWith("nginx")).findFirst().orElse(null);
    }

    private double thr(BenchExactCacheCommand.Target t) {
        return Medians.of(closed.get(t).stream().mapToDouble(BenchReport::throughput));
    }

    private double p(BenchExactCacheCommand.Target t, ToDoubleFunction<LatencySummary> f) {
        return Medians.of(open.get(t).stream().mapToDouble(r -> f.applyAsDouble(r.total())));
    }

    @Override
    public String failure() {
        long errors = Stream.concat(closed.values().stream(), open.values().stream()).flatMap(List::stream)
                .mapToLong(BenchReport::errors).sum();
        long misses = backendCalls.values().stream().mapToLong(Long::longValue).sum();
        boolean allHits = after.values().stream().allMatch(m -> m.getOrDefault("HIT", 0) == bodies.size());
        return errors == 0 && misses == 0 && allHits ? null
                : errors + " request errors, " + misses + " backend calls (misses) while measuring, hits after the run "
                        + after;
    }

    @Override
    public String toText() {
        ReportText out = new ReportText();
        int rounds = run.options.rounds();
        int avgBody = (int) bodies.stream().mapToInt(b -> b.length).average().orElse(0);
        out.line("%nExact-cache hits: %d distinct %s requests (%d body bytes on average), every one cached in every "
                + "target; %d cores; %d rounds of %s per phase", bodies.size(), String.join(" and ", run.paths()), avgBody,
                Runtime.getRuntime().availableProcessors(), rounds, Durations.format(run.options.duration()));
        out.line("Gateways: %s%s; reference: %s", String.join(", ", run.stores),
                redisUri == null ? "" : " (Redis " + redisUri + ")", nginxNote == null ? "none (--no-nginx)" : nginxNote);

        out.line("%nThroughput of hits, closed loop with %d connections, requests/s", run.connections);
        StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "%-8s", "target"));
        for (int r = 1; r <= rounds; r++) {
            head.append(String.format(Locale.ROOT, " %9s", "round " + r));
        }
        out.line("%s %9s %7s", head, "median", "errors");
        for (BenchExactCacheCommand.Target t : closed.keySet()) {
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-8s", t.name()));
            closed.get(t).forEach(b -> row.append(String.format(Locale.ROOT, " %9.0f", b.throughput())));
            out.line("%s %9.0f %7d", row, thr(t), closed.get(t).stream().mapToLong(BenchReport::errors).sum());
        }

        out.line("%nLatency of hits, open loop at %.0f requests/s%s (from intended send time), ms", openRate,
                autoRate ? " = half the lowest median throughput" : "");
        out.line("%-8s %5s %8s %8s %8s %8s %8s %7s", "target", "round", "p50", "p90", "p99", "p99.9", "max", "errors");
        for (BenchExactCacheCommand.Target t : open.keySet()) {
            List<BenchReport> reports = open.get(t);
            for (int r = 0; r < reports.size(); r++) {
                LatencySummary s = reports.get(r).total();
                out.line("%-8s %5d %8.3f %8.3f %8.3f %8.3f %8.3f %7d", t.name(), r + 1, s.p50Ms(), s.p90Ms(),
                        s.p99Ms(), s.p999Ms(), s.maxMs(), reports.get(r).errors());
            }
        }

        out.line("%nMedians of %d rounds%s", rounds,
                nginx != null ? "; ratios are target / nginx (throughput: higher is better, p99: lower is better)" : "");
        out.line("%-8s %9s %8s %8s %8s %9s %9s %11s %9s", "target", "thr/s", "p50 ms", "p99 ms", "p99.9 ms",
                "thr ratio", "p99 ratio", "p99<=1ms", "thr>=nginx");
        for (BenchExactCacheCommand.Target t : closed.keySet()) {
            String thrRatio = nginx != null ? String.format(Locale.ROOT, "%.2f", thr(t) / thr(nginx)) : "-";
            String p99Ratio = nginx != null ? String.format(Locale.ROOT, "%.2f",
                    p(t, LatencySummary::p99Ms) / p(nginx, LatencySummary::p99Ms)) : "-";
            String thrOk = nginx == null || t.equals(nginx) ? "-" : thr(t) >= thr(nginx) ? "yes" : "NO";
            out.line("%-8s %9.0f %8.3f %8.3f %8.3f %9s %9s %11s %9s", t.name(), thr(t), p(t, LatencySummary::p50Ms),
                    p(t, LatencySummary::p99Ms), p(t, LatencySummary::p999Ms), thrRatio, p99Ratio,
                    p(t, LatencySummary::p99Ms) <= 1.0 ? "yes" : "NO", thrOk);
        }
        out.line("%nBackend calls during the measured phases (misses): %s", backendCalls);
        out.line("Hit check after the run: %s", after);
        out.line("Gateway exact-cache lookups over the whole run (fill, checks, warm-up, measurement): %s", lookups);
        if (backendCalls.values().stream().anyMatch(c -> c > 0)) {
            out.line("NOT every measured request was a hit: the figures of a target with backend calls mix hits and "
                    + "misses (a lookup error is a Redis answer slower than cache.exact.timeout: the gateway fails "
                    + "open to the backend).");
        }
        if (nginxNote != null && nginx == null) {
            out.line("nginx %s", nginxNote);
        }
        return out.toString();
    }

    @Override
    public JsonNode json() {
        ObjectNode out = BenchJson.object().put("cores", Runtime.getRuntime().availableProcessors())
                .put("requests", bodies.size()).put("paths", String.join(",", run.paths()))
                .put("connections", run.connections).put("rate", openRate)
                .put("rateAuto", autoRate).put("rounds", run.options.rounds()).put("redisUri", redisUri)
                .put("nginx", nginxNote);
        ArrayNode targets = out.putArray("targets");
        for (BenchExactCacheCommand.Target t : closed.keySet()) {
            ObjectNode o = targets.addObject().put("name", t.name());
            o.set("closed", BenchJson.tree(closed.get(t)));
            o.set("open", BenchJson.tree(open.get(t)));
            o.put("medianThroughput", thr(t)).put("medianP50Ms", p(t, LatencySummary::p50Ms))
                    .put("medianP90Ms", p(t, LatencySummary::p90Ms)).put("medianP99Ms", p(t, LatencySummary::p99Ms))
                    .put("medianP999Ms", p(t, LatencySummary::p999Ms)).put("backendCalls", backendCalls.get(t.name()));
            if (nginx != null) {
                o.put("throughputVsNginx", thr(t) / thr(nginx))
                        .put("p99VsNginx", p(t, LatencySummary::p99Ms) / p(nginx, LatencySummary::p99Ms));
            }
            o.put("hitsAfter", after.get(t.name()).getOrDefault("HIT", 0));
            if (lookups.containsKey(t.name())) {
                o.set("lookups", BenchJson.tree(lookups.get(t.name())));
            }
        }
        return out;
    }
}
