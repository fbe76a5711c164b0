package io.cachegate.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** What {@code bench chaos} prints: a row per fault, then the soak's memory samples, slopes and verdict. */
final class ChaosReport implements ScenarioReport {

    private final BenchChaosCommand run;
    private final List<BenchChaosCommand.Measured> rows;
    private final ChaosSoak.Result soak;

    ChaosReport(BenchChaosCommand run, List<BenchChaosCommand.Measured> rows, ChaosSoak.Result soak) {
        this.run = run;
        this.rows = rows;
        this.soak = soak;
    }

    /** The soak's verdict for one gateway over the last {@link ChaosSoak#WINDOW}. */
    record Trend(int gateway, int samples, double rssSlopeKibPerMin, double heapSlopeKibPerMin, long rssMinKib,
                 long rssMaxKib, long heapFirstKib, long heapLastKib) {

        boolean rssWithinTenPercent() {
            return rssMaxKib <= rssMinKib * 1.10;
        }
    }

    List<Trend> trends() {
        List<Trend> out = new ArrayList<>();
        if (soak == null) {
            return out;
        }
        double end = soak.samples().stream().mapToDouble(ChaosSoak.Sample::minutes).max().orElse(0);
        double from = end - ChaosSoak.WINDOW.toSeconds() / 60.0;
        for (int g = 0; g < run.gateways; g++) {
            int gateway = g;
            List<ChaosSoak.Sample> window = soak.samples().stream()
                    .filter(s -> s.gateway() == gateway && s.minutes() >= from && s.rssKib() > 0).toList();
            if (window.isEmpty()) {
                continue;
            }
            List<Double> minutes = window.stream().map(ChaosSoak.Sample::minutes).toList();
            out.add(new Trend(g, window.size(),
                    ChaosSoak.slope(minutes, window.stream().map(ChaosSoak.Sample::rssKib).toList()),
                    ChaosSoak.slope(minutes, window.stream().map(ChaosSoak.Sample::heapAfterGcKib).toList()),
                    window.stream().mapToLong(ChaosSoak.Sample::rssKib).min().orElse(0),
                    window.stream().mapToLong(ChaosSoak.Sample::rssKib).max().orElse(0),
                    window.get(0).heapAfterGcKib(), window.get(window.size() - 1).heapAfterGcKib()));
        }
        return out;
    }

    @Override
    public String toText() {
        StringBuilder out = new StringBuilder(4096);
        out.append(String.format(Locale.ROOT, "chaos: %d gateways over one Redis (store redis, fleet coalescing on); "
                        + "%d requests per fault, repeat share %.2f, bursts of %d, %d client threads, %d tokens; "
                        + "simulator ttft %d ms + %.1f ms/token%n%n", run.gateways, run.requests, run.repeatShare,
                run.burst, run.connections, run.maxTokens, run.simulator.ttftMs(), run.simulator.tpotMs()));
        out.append(String.format(Locale.ROOT, "%-15s %8s %8s %8s %9s %8s %8s %8s %8s %9s %9s  %s%n", "fault", "gw 5xx",
                "conn err", "4xx", "backend", "distinct", "calls", "calls/q", "hit rate", "p50 ms", "p99 ms",
                "gateway RSS MiB"));
        for (BenchChaosCommand.Measured m : rows) {
            out.append(String.format(Locale.ROOT, "%-15s %8d %8d %8d %9d %8d %8d %8.2f %7.1f%% %9.1f %9.1f  %s%n",
                    m.fault().option, m.gatewayErrors(), m.connectionErrors(), m.rejected(), m.backendErrors(),
                    m.distinct(), m.backendCalls(), (double) m.backendCalls() / m.distinct(),
                    100.0 * m.hits() / m.requests(), m.p50Ms(), m.p99Ms(), rss(m.rssKib())));
        }
        out.append("gw 5xx: 5xx the gateways made themselves; conn err: connection errors and client timeouts (30 s); "
                + "backend: the simulator's injected 500s passed through; calls/q: backend calls per distinct question; "
                + "latency of the 200s.\n");
        for (BenchChaosCommand.Measured m : rows) {
            out.append("  ").append(m.fault().option).append(": ").append(m.fault().description)
                    .append(m.errors().isEmpty() ? "" : "; failed: " + m.errors()).append('\n');
        }
        if (soak != null) {
            out.append(String.format(Locale.ROOT, "%nsoak: %s at %.0f requests/s (40%% repeats, 20%% paraphrases, 25%% "
                            + "streamed): %d sent, %d ok, %d gateway errors, hit rate %.1f%%%n", soak.duration(),
                    soak.rate(), soak.sent(), soak.ok(), soak.gatewayErrors(), 100.0 * soak.hits() / Math.max(1, soak.sent())));
            soak.errors().forEach((kind, n) -> out.append("  failed: ").append(n).append(" × ").append(kind).append('\n'));
            out.append(String.format(Locale.ROOT, "%8s %8s %10s %18s%n", "minute", "gateway", "RSS MiB", "heap after GC MiB"));
            for (ChaosSoak.Sample s : soak.samples()) {
                out.append(String.format(Locale.ROOT, "%8.1f %8d %10.1f %18.1f%n", s.minutes(), s.gateway() + 1,
                        s.rssKib() / 1024.0, s.heapAfterGcKib() / 1024.0));
            }
            for (Trend t : trends()) {
                out.append(String.format(Locale.ROOT, "gateway %d, last %d min (%d samples): RSS slope %+.1f KiB/min, "
                                + "heap-after-GC slope %+.1f KiB/min, RSS %.1f..%.1f MiB: %s%n", t.gateway() + 1,
                        ChaosSoak.WINDOW.toMinutes(), t.samples(), t.rssSlopeKibPerMin(), t.heapSlopeKibPerMin(),
                        t.rssMinKib() / 1024.0, t.rssMaxKib() / 1024.0,
                        t.rssWithinTenPercent() ? "within 10%" : "NOT within 10%"));
            }
        }
        String failure = failure();
        if (failure != null) {
            out.append("FAILED: ").append(failure).append('\n');
        }
        return out.toString();
    }

    private static String rss(List<Long> kib) {
        return kib.stream().map(k -> k < 0 ? "-" : Long.toString(k / 1024)).collect(Collectors.joining("/"));
    }

    @Override
    public JsonNode json() {
        ObjectNode root = BenchJson.object();
        root.put("gateways", run.gateways).put("requests", run.requests).put("repeat_share", run.repeatShare)
                .put("burst", run.burst).put("connections", run.connections).put("max_tokens", run.maxTokens);
        ArrayNode faults = root.putArray("faults");
        for (BenchChaosCommand.Measured m : rows) {
            ObjectNode f = faults.addObject().put("fault", m.fault().option).put("gateway_5xx", m.gatewayErrors())
                    .put("connection_errors", m.connectionErrors()).put("rejected_4xx", m.rejected())
                    .put("backend_errors", m.backendErrors()).put("distinct", m.distinct())
                    .put("backend_calls", m.backendCalls())
                    .put("backend_calls_per_distinct", (double) m.backendCalls() / m.distinct())
                    .put("hit_rate", (double) m.hits() / m.requests()).put("p50_ms", m.p50Ms()).put("p99_ms", m.p99Ms());
            m.rssKib().forEach(f.putArray("gateway_rss_kib")::add);
        }
        if (soak != null) {
            ObjectNode s = root.putObject("soak").put("seconds", soak.duration().toSeconds()).put("rate", soak.rate())
                    .put("sent", soak.sent()).put("ok", soak.ok()).put("gateway_errors", soak.gatewayErrors())
                    .put("hits", soak.hits());
            ObjectNode errors = s.putObject("errors");
            soak.errors().forEach(errors::put);
            ArrayNode samples = s.putArray("samples");
            soak.samples().forEach(x -> samples.addObject().put("minute", x.minutes()).put("gateway", x.gateway() + 1)
                    .put("rss_kib", x.rssKib()).put("heap_after_gc_kib", x.heapAfterGcKib()));
            ArrayNode trends = s.putArray("trends");
            trends().forEach(t -> trends.addObject().put("gateway", t.gateway() + 1).put("samples", t.samples())
                    .put("rss_slope_kib_per_min", t.rssSlopeKibPerMin())
                    .put("heap_slope_kib_per_min", t.heapSlopeKibPerMin())
                    .put("rss_within_10_percent", t.rssWithinTenPercent()));
        }
        return root;
    }

    /** The baseline must cause no client errors, and the soak's RSS must stay within 10%. */
    @Override
    public String failure() {
        List<String> problems = new ArrayList<>();
        rows.stream().filter(m -> m.fault() == ChaosFault.NONE && m.gatewayErrors() + m.connectionErrors() > 0)
                .forEach(m -> problems.add("the baseline had " + (m.gatewayErrors() + m.connectionErrors())
                        + " client errors caused by the gateways"));
        trends().stream().filter(t -> !t.rssWithinTenPercent())
                .forEach(t -> problems.add("gateway " + (t.gateway() + 1) + "'s RSS grew more than 10% in the soak"));
        return problems.isEmpty() ? null : String.join("; ", problems);
    }
}
