package io.cachegate.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What {@code bench compare} prints: per client, a table of every target's median throughput and latency with
 * its ratios to nginx measured in the same rounds, the throughput of each round, the versions and skipped peers,
 * and what each product can and cannot do with the same request (a fast answer is only worth as much as the
 * rules it answers by).
 */
final class CompareReport implements ScenarioReport {

    /** By family: what it does with a chat request, beyond the speed measured here. */
    static final Map<String, String> CAPABILITIES = Map.of(
            "cachegate", "keys on tenant, model version, context hash and the canonical request (JSON field order "
                    + "and whitespace do not split entries); caches only deterministic requests unless a route opts "
                    + "in; answers a streamed request from a cached answer as SSE; honours Cache-Control no-store, "
                    + "no-cache and max-age; purges by tenant, model version, tag; semantic matches; admission "
                    + "control with 429 and Retry-After.",
            "nginx", "proxy_cache keys on the bytes of the body ($request_body: empty, so one key for all, when a "
                    + "body does not fit client_body_buffer_size; sized to client_max_body_size here): a reordered "
                    + "field or a space is a miss; no tenant (a header could be added to the key, the API key as "
                    + "sent) and no model version; caches sampled (temperature > 0) answers as well; a streamed "
                    + "request is only answered from bytes stored for the byte-identical streamed request; no purge "
                    + "in open-source nginx. The constant site does no lookup and no upstream call: the ceiling.",
            "portkey", "routes, retries and falls back across providers and translates their APIs; the open-source "
                    + "build has no response cache (its cache hooks are left unset): every request reaches the "
                    + "backend, see backend/req.",
            "litellm", "routes to many providers with budgets and keys; its response cache needs a cache backend "
                    + "configured (not set here): measured as a plain proxy.");

    private final List<CompareTarget> targets;
    private final Map<String, CompareTable> tables;
    private final Map<String, String> notes;
    private final Map<String, Integer> answerSizes;
    private final int answerBytes;
    private final int bodyBytes;
    private final int connections;
    private final int wrkThreads;
    private final int rounds;
    private final Duration duration;

    CompareReport(List<CompareTarget> targets, Map<String, CompareTable> tables, Map<String, String> notes,
                  Map<String, Integer> answerSizes, int answerBytes, int bodyBytes, int connections, int wrkThreads,
                  int rounds, Duration duration) {
        this.targets = List.copyOf(targets);
        this.tables = Map.copyOf(tables);
        this.notes = new LinkedHashMap<>(notes); // in the order they were found
        this.answerSizes = Map.copyOf(answerSizes);
        this.answerBytes = answerBytes;
        this.bodyBytes = bodyBytes;
        this.connections = connections;
        this.wrkThreads = wrkThreads;
        this.rounds = rounds;
        this.duration = duration;
    }

    @Override
    public String failure() {
        String failing = tables.values().stream().flatMap(t -> t.rows().stream())
                .filter(r -> r.errors() > 0 && (r.target().startsWith("cachegate") || r.target().startsWith("nginx")))
                .map(r -> r.target() + " (" + r.errors() + ")").distinct().collect(Collectors.joining(", "));
        return failing.isEmpty() ? null : "request errors: " + failing;
    }

    @Override
    public String toText() {
        ReportText out = new ReportText();
        out.line("%nCachegate and its peers on one chat request (%d-byte body, %d-byte answer from a zero-latency "
                + "simulator), %d cores", bodyBytes, answerBytes, Runtime.getRuntime().availableProcessors());
        out.line("%d rounds of %d s per target and client, alternating; %d connections, closed loop; wrk with %d "
                + "thread(s); cpu us/req: user + system time of the target's processes (not the simulator's) a request",
                rounds, duration.toSeconds(), connections, wrkThreads);
        notes.forEach((k, v) -> out.line("  %-8s %s", k, v));
        // As wide as the longest target name (cachegate-memory@25 with --java), 17 at least.
        int width = Math.max(17, targets.stream().mapToInt(t -> t.name().length()).max().orElse(0));
        String name = "%-" + width + "s";
        for (String client : clientOrder()) {
            List<CompareTable.Row> rows = tables.get(client).rows();
            out.line("%nClient: %s. Medians; ratios are medians of per-round ratios to nginx "
                    + "(thr: higher is better, p99: lower is better)", client);
            out.line(name + " %-7s %9s %8s %8s %9s %9s %9s %9s %11s %10s %6s", "target", "kind", "thr/s", "p50 ms",
                    "p99 ms", "thr/cache", "thr/proxy", "thr/ceil", "p99/cache", "backend/req", "cpu us/req", "errors");
            for (CompareTable.Row r : rows) {
                out.line(name + " %-7s %9.0f %8.3f %8.3f %9s %9s %9s %9s %11s %10s %6d", r.target(), kind(r.target()),
                        r.throughput(), r.p50Ms(), r.p99Ms(), ratio(r.vsCache()), ratio(r.vsProxy()),
                        ratio(r.vsCeiling()), ratio(r.p99VsCache()), ratio(r.backendPerRequest()), micros(r.cpuMicros()),
                        r.errors());
            }
            out.line("Throughput by round, requests/s:");
            for (CompareTable.Row r : rows) {
                out.line("  " + name + " %s", r.target(), r.rounds().stream()
                        .map(s -> String.format(Locale.ROOT, "%.0f", s.throughput())).collect(Collectors.joining("  ")));
            }
        }
        boolean missedHits = tables.values().stream().flatMap(t -> t.rows().stream())
                .anyMatch(r -> kind(r.target()).equals("hit") && r.backendPerRequest() > 0);
        if (missedHits) {
            out.line("%nNOT every measured request of a cache was a hit (backend/req > 0): its figures mix hits and misses.");
        }
        out.line("%nWhat each can do with the same request:");
        targets.stream().map(CompareTarget::family).distinct()
                .forEach(f -> out.line("  %-9s %s", f, CAPABILITIES.getOrDefault(f, "")));
        notes.keySet().stream().filter(k -> CAPABILITIES.containsKey(k) && targets.stream()
                .noneMatch(t -> t.family().equals(k))).forEach(k -> out.line("  %-9s %s (%s)", k, CAPABILITIES.get(k), notes.get(k)));
        return out.toString();
    }

    @Override
    public JsonNode json() {
        ObjectNode out = BenchJson.object().put("cores", Runtime.getRuntime().availableProcessors())
                .put("bodyBytes", bodyBytes).put("answerBytes", answerBytes).put("connections", connections)
                .put("wrkThreads", wrkThreads).put("rounds", rounds).put("durationSeconds", duration.toSeconds());
        out.set("notes", BenchJson.tree(notes));
        out.set("answerSizes", BenchJson.tree(answerSizes));
        ObjectNode clients = out.putObject("clients");
        for (String client : clientOrder()) {
            ArrayNode rows = clients.putArray(client);
            for (CompareTable.Row r : tables.get(client).rows()) {
                ObjectNode row = rows.addObject().put("target", r.target()).put("kind", kind(r.target()))
                        .put("throughput", r.throughput()).put("p50Ms", r.p50Ms()).put("p99Ms", r.p99Ms())
                        .put("errors", r.errors());
                putRatio(row, "backendCallsPerRequest", r.backendPerRequest());
                putRatio(row, "cpuMicrosPerRequest", r.cpuMicros());
                putRatio(row, "throughputVsNginxCache", r.vsCache());
                putRatio(row, "throughputVsNginxProxy", r.vsProxy());
                putRatio(row, "throughputVsCeiling", r.vsCeiling());
                putRatio(row, "p99VsNginxCache", r.p99VsCache());
                row.set("rounds", BenchJson.tree(r.rounds()));
            }
        }
        ObjectNode capabilities = out.putObject("capabilities");
        targets.stream().map(CompareTarget::family).distinct()
                .forEach(f -> capabilities.put(f, CAPABILITIES.getOrDefault(f, "")));
        return out;
    }

    private List<String> clientOrder() {
        return tables.keySet().stream().sorted((a, b) -> a.equals("wrk") ? -1 : b.equals("wrk") ? 1 : a.compareTo(b))
                .toList();
    }

    private String kind(String target) {
        return targets.stream().filter(t -> t.name().equals(target)).findFirst()
                .map(t -> t.kind().name().toLowerCase(Locale.ROOT)).orElse("?");
    }

    private static String ratio(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.2f", value);
    }

    private static String micros(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.1f", value);
    }

    private static void putRatio(ObjectNode row, String name, double value) {
        if (Double.isNaN(value)) {
            row.putNull(name);
        } else {
            row.put(name, value);
        }
    }
}
