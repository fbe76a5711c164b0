package io.cachegate.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.bench.BenchReport;
import io.cachegate.bench.LatencySummary;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * What TLS on the proxy listener costs, from {@code bench overhead --tls}: the same gateway twice, plain and
 * HTTPS, measured in alternating rounds. Keep-alive rounds show the steady state (record encryption only); the
 * rounds that open a new connection for every request show the handshake too.
 *
 * @param keepAlive per round {plain, tls}, open loop over keep-alive connections
 * @param newConnections per round {plain, tls}, open loop, a new connection per request ({@code Connection: close})
 */
record TlsOverheadReport(double rate, double newConnectionRate, List<BenchReport[]> keepAlive,
                         List<BenchReport[]> newConnections, BenchReport closedPlain, BenchReport closedTls,
                         int connections) {

    long errors() {
        return keepAlive.stream().mapToLong(r -> r[1].errors()).sum()
                + newConnections.stream().mapToLong(r -> r[1].errors()).sum() + closedTls.errors();
    }

    double throughputRatio() {
        return closedTls.throughput() / closedPlain.throughput();
    }

    static double medianAdded(List<BenchReport[]> rounds, ToDoubleFunction<LatencySummary> percentile) {
        return Medians.added(rounds, 1, 0, percentile);
    }

    static double median(List<BenchReport[]> rounds, int side, ToDoubleFunction<LatencySummary> percentile) {
        return Medians.ofSide(rounds, side, percentile);
    }

    JsonNode json() {
        ObjectNode out = BenchJson.object().put("rate", rate).put("newConnectionRate", newConnectionRate);
        rounds(out.putArray("keepAliveRounds"), keepAlive);
        rounds(out.putArray("newConnectionRounds"), newConnections);
        out.put("keepAliveAddedP50Ms", medianAdded(keepAlive, LatencySummary::p50Ms))
                .put("keepAliveAddedP99Ms", medianAdded(keepAlive, LatencySummary::p99Ms))
                .put("newConnectionAddedP50Ms", medianAdded(newConnections, LatencySummary::p50Ms))
                .put("newConnectionAddedP99Ms", medianAdded(newConnections, LatencySummary::p99Ms));
        out.set("closedPlain", BenchJson.tree(closedPlain));
        out.set("closedTls", BenchJson.tree(closedTls));
        return out.put("throughputRatio", throughputRatio());
    }

    private static void rounds(ArrayNode array, List<BenchReport[]> rounds) {
        for (BenchReport[] r : rounds) {
            array.addObject().<ObjectNode>set("plain", BenchJson.tree(r[0])).set("tls", BenchJson.tree(r[1]));
        }
    }

    void text(ReportText out) {
        out.line("%nTLS on the proxy listener (JDK provider, TLS 1.3, ECDSA P-256), the same gateway plain and HTTPS");
        out.line("%-32s %9s %9s %9s %9s", "median of " + keepAlive.size() + " rounds", "p50 ms", "p99 ms",
                "added p50", "added p99");
        row(out, String.format(java.util.Locale.ROOT, "keep-alive %.0f/s: plain", rate), keepAlive, 0);
        row(out, "keep-alive: https", keepAlive, 1);
        row(out, String.format(java.util.Locale.ROOT, "new connection %.0f/s: plain", newConnectionRate),
                newConnections, 0);
        row(out, "new connection: https", newConnections, 1);
        out.line("Throughput, closed loop with %d keep-alive connections: plain %.0f/s, https %.0f/s, ratio %.2f",
                connections, closedPlain.throughput(), closedTls.throughput(), throughputRatio());
    }

    private static void row(ReportText out, String label, List<BenchReport[]> rounds, int side) {
        if (side == 0) {
            out.line("%-32s %9.3f %9.3f", label, median(rounds, 0, LatencySummary::p50Ms),
                    median(rounds, 0, LatencySummary::p99Ms));
        } else {
            out.line("%-32s %9.3f %9.3f %9.3f %9.3f", label, median(rounds, 1, LatencySummary::p50Ms),
                    median(rounds, 1, LatencySummary::p99Ms), medianAdded(rounds, LatencySummary::p50Ms),
                    medianAdded(rounds, LatencySummary::p99Ms));
        }
    }
}
