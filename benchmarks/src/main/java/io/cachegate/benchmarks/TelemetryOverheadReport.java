package io.cachegate.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.bench.BenchReport;
import io.cachegate.bench.LatencySummary;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * What telemetry costs, from {@code bench overhead --telemetry}: the same gateway three times, with nothing on (the
 * access log off, no traces), with traces at 10% sampling exported over OTLP/HTTP, and with the access log written
 * to a file, measured against the simulator directly in alternating rounds.
 *
 * @param rounds per round {direct, plain, traced, logged}
 */
record TelemetryOverheadReport(double rate, double sampling, List<BenchReport[]> rounds, long exports,
                               long exportedBytes) {

    static final String[] NAMES = {"direct", "gateway, telemetry off", "traced at 10%", "access log to a file"};
    private static final String[] KEYS = {"direct", "off", "traced", "logged"};

    long errors() {
        return rounds.stream().mapToLong(r -> r[1].errors() + r[2].errors() + r[3].errors()).sum();
    }

    /** The median over rounds of one side's percentile minus the direct one's. */
    double medianAdded(int side, ToDoubleFunction<LatencySummary> percentile) {
        return Medians.added(rounds, side, 0, percentile);
    }

    double median(int side, ToDoubleFunction<LatencySummary> percentile) {
        return Medians.ofSide(rounds, side, percentile);
    }

    JsonNode json() {
        ObjectNode out = BenchJson.object().put("rate", rate).put("sampling", sampling).put("otlpExports", exports)
                .put("otlpBytes", exportedBytes);
        ArrayNode array = out.putArray("rounds");
        for (BenchReport[] r : rounds) {
            ObjectNode round = array.addObject();
            for (int side = 0; side < KEYS.length; side++) {
                round.set(KEYS[side], BenchJson.tree(r[side]));
            }
        }
        for (int side = 1; side < KEYS.length; side++) {
            out.put(KEYS[side] + "AddedP50Ms", medianAdded(side, LatencySummary::p50Ms))
                    .put(KEYS[side] + "AddedP99Ms", medianAdded(side, LatencySummary::p99Ms));
        }
        return out;
    }

    void text(ReportText out) {
        out.line("%nTelemetry at %.0f requests/s, the same gateway three ways against the simulator directly", rate);
        out.line("%-32s %9s %9s %9s %9s", "median of " + rounds.size() + " rounds", "p50 ms", "p99 ms", "added p50",
                "added p99");
        out.line("%-32s %9.3f %9.3f", NAMES[0], median(0, LatencySummary::p50Ms), median(0, LatencySummary::p99Ms));
        for (int side = 1; side < NAMES.length; side++) {
            out.line("%-32s %9.3f %9.3f %9.3f %9.3f", NAMES[side], median(side, LatencySummary::p50Ms),
                    median(side, LatencySummary::p99Ms), medianAdded(side, LatencySummary::p50Ms),
                    medianAdded(side, LatencySummary::p99Ms));
        }
        out.line(String.format(Locale.ROOT, "OTLP exports received: %d (%.1f KiB)", exports, exportedBytes / 1024.0));
    }
}
