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
 * What HTTP/2 to the client costs against HTTP/1.1, from {@code bench overhead --http2}: the same gateway over
 * both, in alternating rounds at the same open-loop rate (one request in flight per connection, a new stream per
 * request over HTTP/2), then closed loop. The gateway's upstream side is HTTP/1.1 either way.
 *
 * @param rounds per round {http/1.1, h2c}, open loop over keep-alive connections
 */
record Http2OverheadReport(double rate, List<BenchReport[]> rounds, BenchReport closedHttp1, BenchReport closedHttp2,
                           int connections) {

    long errors() {
        return rounds.stream().mapToLong(r -> r[1].errors()).sum() + closedHttp2.errors();
    }

    double throughputRatio() {
        return closedHttp2.throughput() / closedHttp1.throughput();
    }

    private double medianAdded(ToDoubleFunction<LatencySummary> percentile) {
        return Medians.added(rounds, 1, 0, percentile);
    }

    JsonNode json() {
        ObjectNode out = BenchJson.object().put("rate", rate);
        ArrayNode array = out.putArray("rounds");
        for (BenchReport[] r : rounds) {
            array.addObject().<ObjectNode>set("http1", BenchJson.tree(r[0])).set("http2", BenchJson.tree(r[1]));
        }
        out.put("addedP50Ms", medianAdded(LatencySummary::p50Ms)).put("addedP99Ms", medianAdded(LatencySummary::p99Ms));
        out.set("closedHttp1", BenchJson.tree(closedHttp1));
        out.set("closedHttp2", BenchJson.tree(closedHttp2));
        return out.put("throughputRatio", throughputRatio());
    }

    void text(ReportText out) {
        out.line("%nHTTP/2 (h2c, prior knowledge) to the same gateway, against HTTP/1.1");
        out.line("%-26s %9s %9s %9s %9s", "median of " + rounds.size() + " rounds", "p50 ms", "p99 ms", "added p50",
                "added p99");
        out.line("%-26s %9.3f %9.3f", String.format(Locale.ROOT, "%.0f/s: http/1.1", rate),
                Medians.ofSide(rounds, 0, LatencySummary::p50Ms), Medians.ofSide(rounds, 0, LatencySummary::p99Ms));
        out.line("%-26s %9.3f %9.3f %9.3f %9.3f", "h2c", Medians.ofSide(rounds, 1, LatencySummary::p50Ms),
                Medians.ofSide(rounds, 1, LatencySummary::p99Ms), medianAdded(LatencySummary::p50Ms),
                medianAdded(LatencySummary::p99Ms));
        out.line("Throughput, closed loop with %d connections: http/1.1 %.0f/s, h2c %.0f/s, ratio %.2f", connections,
                closedHttp1.throughput(), closedHttp2.throughput(), throughputRatio());
    }
}
