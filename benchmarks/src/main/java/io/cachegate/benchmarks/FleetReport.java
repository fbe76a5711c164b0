package io.cachegate.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** What {@code bench fleet} prints: one row per fleet size, coalescing setting and round; memory per entry. */
final class FleetReport implements ScenarioReport {

    private final BenchFleetCommand run;
    private final Map<BenchFleetCommand.Setting, List<BenchFleetCommand.Measured>> results;
    private final long entryBytes;
    private final long entriesSampled;
    private final String redisUri;

    FleetReport(BenchFleetCommand run, Map<BenchFleetCommand.Setting, List<BenchFleetCommand.Measured>> results,
                long entryBytes, long entriesSampled, String redisUri) {
        this.run = run;
        this.results = results;
        this.entryBytes = entryBytes;
        this.entriesSampled = entriesSampled;
        this.redisUri = redisUri;
    }

    @Override
    public String toText() {
        StringBuilder out = new StringBuilder(2048);
        out.append(String.format(Locale.ROOT, "fleet: %d requests per measurement, repeat share %.2f, bursts of %d, "
                        + "%d client threads; simulator ttft %d ms + %d ms/token; Redis %s%n%n", run.requests,
                run.repeatShare, run.burst, run.connections, run.ttftMs, run.tpotMs, redisUri));
        out.append(String.format(Locale.ROOT, "%-28s %6s %8s %8s %13s %8s %10s %11s %11s %13s%n", "setting", "round",
                "distinct", "backend", "calls/distinct", "hit rate", "fleet hits", "p50 hit ms", "p99 hit ms",
                "Redis cmd/req"));
        results.forEach((setting, rounds) -> {
            for (int r = 0; r < rounds.size(); r++) {
                BenchFleetCommand.Measured m = rounds.get(r);
                out.append(String.format(Locale.ROOT, "%-28s %6d %8d %8d %13.2f %7.1f%% %10d %11.2f %11.2f %13.2f%n",
                        setting.name(), r + 1, m.distinct(), m.backendCalls(), callsPerDistinct(m),
                        100.0 * m.hits() / m.requests(), m.fleetHits(), m.p50HitMs(), m.p99HitMs(),
                        commandsPerRequest(m)));
            }
        });
        out.append(String.format(Locale.ROOT, "%nmemory per entry (MEMORY USAGE, mean of %d entries): %d bytes%n",
                entriesSampled, entryBytes));
        out.append("hit rate: X-Cache: HIT of all requests (fleet hits included: answers another gateway generated "
                + "while the request waited); hit latency: hits from the store only.\n");
        String failure = failure();
        if (failure != null) {
            out.append("FAILED: ").append(failure).append('\n');
        }
        return out.toString();
    }

    private static double callsPerDistinct(BenchFleetCommand.Measured m) {
        return (double) m.backendCalls() / m.distinct();
    }

    private static double commandsPerRequest(BenchFleetCommand.Measured m) {
        return (double) m.redisCommands() / m.requests();
    }

    @Override
    public JsonNode json() {
        ObjectNode root = BenchJson.object();
        root.put("requests", run.requests).put("repeat_share", run.repeatShare).put("burst", run.burst)
                .put("connections", run.connections).put("ttft_ms", run.ttftMs).put("tpot_ms", run.tpotMs)
                .put("memory_per_entry_bytes", entryBytes).put("entries_sampled", entriesSampled);
        ArrayNode rows = root.putArray("results");
        results.forEach((setting, rounds) -> {
            for (BenchFleetCommand.Measured m : rounds) {
                rows.addObject().put("gateways", setting.gateways()).put("coalesce_across_gateways", setting.coalesce())
                        .put("distinct", m.distinct()).put("backend_calls", m.backendCalls())
                        .put("backend_calls_per_distinct", callsPerDistinct(m))
                        .put("hit_rate", (double) m.hits() / m.requests()).put("fleet_hits", m.fleetHits())
                        .put("errors", m.errors()).put("p50_hit_ms", m.p50HitMs()).put("p99_hit_ms", m.p99HitMs())
                        .put("redis_commands", m.redisCommands())
                        .put("redis_commands_per_request", commandsPerRequest(m));
            }
        });
        return root;
    }

    @Override
    public String failure() {
        long errors = results.values().stream().flatMap(List::stream).mapToLong(BenchFleetCommand.Measured::errors).sum();
        return errors == 0 ? null : errors + " requests failed (see the gateways' logs)";
    }
}
