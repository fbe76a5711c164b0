package io.cachegate.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.bench.BenchOptions;
import io.cachegate.bench.BenchReport;
import io.cachegate.bench.GeneratorSpec;
import io.cachegate.bench.LatencySummary;
import io.cachegate.bench.RequestSource;
import io.cachegate.bench.RequestSources;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cachegate bench overhead}: the gateway's added latency and throughput cost. Starts a
 * zero-latency simulator and a gateway in front of it as separate processes (all on this machine,
 * as a sidecar would be), then measures in one run: open-loop latency at a fixed rate, direct and through the gateway in
 * alternating rounds, and closed-loop throughput direct and through the gateway. With {@code --tls}, a second,
 * identical gateway with HTTPS on its proxy listener joins every round, over keep-alive connections and over a new
 * connection per request, so the cost of TLS is measured against the plain gateway (see {@link TlsOverheadReport}).
 * With {@code --http2}, every round also measures the same gateway over HTTP/2 ({@link Http2OverheadReport}).
 */
@Command(name = "overhead", mixinStandardHelpOptions = true,
        description = {
            "Measure the latency and throughput cost of the gateway against a zero-latency simulator.",
            "--warmup is a closed-loop warm-up through the gateway; each round runs the open loop direct, then via "
                    + "the gateway; the closed loop follows the rounds.",
            "--tls adds an identical gateway with HTTPS (a throwaway self-signed certificate) to every round, "
                    + "keep-alive and with a new connection per request, and to the closed loop.",
            "--telemetry adds the same gateway traced at 10%% (OTLP/HTTP to a local sink) and with the access log "
                    + "written to a file to every round.",
            "--http2 adds the same gateway over HTTP/2 (h2c by prior knowledge) to every round and to the closed loop."
        })
final class BenchOverheadCommand extends Scenario {

    private static final Duration PHASE_RAMP = Duration.ofSeconds(2);

    @Option(names = "--rate", defaultValue = "1000", description = "Open-loop rate, requests/s (default ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--connections", defaultValue = "32", description = "Connections for the closed-loop throughput phase (default ${DEFAULT-VALUE}).")
    int connections;

    @Option(names = "--stream-fraction", defaultValue = "0", description = "Fraction of streamed requests (default ${DEFAULT-VALUE}).")
    double streamFraction;

    @Option(names = "--tls", description = "Also measure the gateway with TLS on its proxy listener, against the "
            + "same gateway plain.")
    boolean tls;

    @Option(names = "--telemetry", description = "Also measure the same gateway with traces at 10%% sampling "
            + "(exported over OTLP/HTTP to a local sink) and with the access log written to a file, against it with "
            + "both off.")
    boolean telemetry;

    @Option(names = "--http2", description = "Also measure the same gateway over HTTP/2 (h2c, prior knowledge), "
            + "against it over HTTP/1.1.")
    boolean http2;

    @Option(names = "--new-connection-rate", defaultValue = "100", description = "With --tls: open-loop rate of the "
            + "rounds that open a new connection per request, requests/s (default ${DEFAULT-VALUE}).")
    double newConnectionRate;

    BenchOverheadCommand() {
        super("overhead", new ScenarioOptions("20s", "15s", 3, ScenarioOptions.CHILD_JVM_OPTS));
    }

    @Override
    void check(List<String> problems) {
        if (!(newConnectionRate > 0 && Double.isFinite(newConnectionRate))) {
            problems.add("--new-connection-rate must be > 0 (was " + newConnectionRate + ")");
        }
    }

    @Override
    ScenarioReport measure(BenchChildren children) throws Exception {
        try (OtlpSink sink = telemetry ? OtlpSink.start() : null) {
            return measure(children, sink);
        }
    }

    private ScenarioReport measure(BenchChildren children, OtlpSink sink) throws Exception {
        ChildSimulator sim = children.simulator("sim", 1);
        GatewayPolicy policy = GatewayPolicy.of(options.gatewayThreads(), sim);
        ChildGateway gw = children.gateway("gateway", List.of(), policy);
        ChildGateway https = tls
                ? children.gateway("gateway-tls", List.of(), policy.tls(BenchCertificate.create(children.dir())))
                : null;
        ChildGateway traced = telemetry ? children.gateway("gateway-traced", List.of(), policy.with(
                "telemetry: { sampling: 0.1, otlp: { endpoint: \"" + sink.uri() + "\" } }")) : null;
        ChildGateway logged = telemetry ? children.gateway("gateway-logged", List.of(), policy.log(
                "log: { access: file, file: \"" + children.dir().resolve("access.log") + "\" }")) : null;
        sim.awaitReady();
        gw.awaitReady();
        for (ChildGateway other : new ChildGateway[] {https, traced, logged}) {
            if (other != null) {
                other.awaitReady();
            }
        }
        URI direct = sim.uri();
        URI gateway = gw.uri();
        System.err.printf("simulator pid %d on %s, gateway pid %d on %s (io_threads %d)%n",
                sim.process().pid(), direct, gw.process().pid(), gateway, options.gatewayThreads());
        Duration recorded = options.duration();
        // The gateway path warms the simulator too; every phase then has a short unrecorded ramp of its own.
        run(gateway, BenchOptions.Mode.CLOSED, options.warmup(), Duration.ZERO, "warm-up (not recorded)");
        if (telemetry) {
            run(traced.uri(), BenchOptions.Mode.CLOSED, options.warmup(), Duration.ZERO, "warm-up traced (not recorded)");
            run(logged.uri(), BenchOptions.Mode.CLOSED, options.warmup(), Duration.ZERO, "warm-up logged (not recorded)");
        }
        if (http2) {
            run(gateway, true, BenchOptions.Mode.CLOSED, options.warmup(), Duration.ZERO, "warm-up h2c (not recorded)");
        }
        if (https != null) {
            run(https.uri(), BenchOptions.Mode.CLOSED, options.warmup(), Duration.ZERO, "warm-up https (not recorded)");
            // Keep-alive traffic runs few handshakes: the handshake code (both sides) gets its own warm-up.
            newConnections(https.uri(), options.warmup(), "warm-up https, new connection per request (not recorded)");
        }
        // Rounds alternate direct and gateway (and https), so noise from the shared machine falls on all alike.
        List<BenchReport[]> rounds = new ArrayList<>();
        List<BenchReport[]> tlsKeepAlive = new ArrayList<>();
        List<BenchReport[]> tlsNew = new ArrayList<>();
        List<BenchReport[]> telemetryRounds = new ArrayList<>();
        List<BenchReport[]> http2Rounds = new ArrayList<>();
        for (int r = 1; r <= options.rounds(); r++) {
            BenchReport d = run(direct, BenchOptions.Mode.OPEN, recorded, PHASE_RAMP, "round " + r + ": open loop, direct");
            BenchReport g = run(gateway, BenchOptions.Mode.OPEN, recorded, PHASE_RAMP, "round " + r + ": open loop, via gateway");
            rounds.add(new BenchReport[] {d, g});
            if (http2) {
                http2Rounds.add(new BenchReport[] {g, run(gateway, true, BenchOptions.Mode.OPEN, recorded, PHASE_RAMP,
                        "round " + r + ": open loop, via gateway over h2c")});
            }
            if (telemetry) {
                telemetryRounds.add(new BenchReport[] {d, g,
                        run(traced.uri(), BenchOptions.Mode.OPEN, recorded, PHASE_RAMP, "round " + r + ": traced at 10%"),
                        run(logged.uri(), BenchOptions.Mode.OPEN, recorded, PHASE_RAMP, "round " + r + ": access log on")});
            }
            if (https != null) {
                BenchReport t = run(https.uri(), BenchOptions.Mode.OPEN, recorded, PHASE_RAMP,
                        "round " + r + ": open loop, via gateway over https");
                tlsKeepAlive.add(new BenchReport[] {g, t});
                BenchReport gn = newConnections(gateway, recorded, "round " + r + ": new connection per request, http");
                BenchReport tn = newConnections(https.uri(), recorded,
                        "round " + r + ": new connection per request, https");
                tlsNew.add(new BenchReport[] {gn, tn});
            }
        }
        BenchReport closedDirect = run(direct, BenchOptions.Mode.CLOSED, recorded, PHASE_RAMP, "closed loop, direct");
        BenchReport closedGateway = run(gateway, BenchOptions.Mode.CLOSED, recorded, PHASE_RAMP, "closed loop, via gateway");
        TlsOverheadReport tlsReport = null;
        if (https != null) {
            BenchReport closedTls = run(https.uri(), BenchOptions.Mode.CLOSED, recorded, PHASE_RAMP,
                    "closed loop, via gateway over https");
            tlsReport = new TlsOverheadReport(rate, newConnectionRate, tlsKeepAlive, tlsNew, closedGateway, closedTls,
                    connections);
        }
        Http2OverheadReport http2Report = http2 ? new Http2OverheadReport(rate, http2Rounds, closedGateway,
                run(gateway, true, BenchOptions.Mode.CLOSED, recorded, PHASE_RAMP, "closed loop, via gateway over h2c"),
                connections) : null;
        TelemetryOverheadReport telemetryReport = telemetry
                ? new TelemetryOverheadReport(rate, 0.1, telemetryRounds, sink.exports(), sink.bytes()) : null;
        return new Report(rounds, closedDirect, closedGateway, tlsReport, telemetryReport, http2Report);
    }

    private BenchReport run(URI target, BenchOptions.Mode mode, Duration recorded, Duration ramp, String label)
            throws InterruptedException {
        return run(target, false, mode, recorded, ramp, label);
    }

    private BenchReport run(URI target, boolean overHttp2, BenchOptions.Mode mode, Duration recorded, Duration ramp,
                            String label) throws InterruptedException {
        BenchOptions.Builder load = BenchOptions.builder(target, requests()).http2(overHttp2);
        return phase(label, mode == BenchOptions.Mode.OPEN ? load.openLoop(rate, 256) : load.closedLoop(connections),
                recorded, ramp);
    }

    /** Open loop where the gateway closes each connection after its answer: every request pays a new handshake. */
    private BenchReport newConnections(URI target, Duration recorded, String label) throws InterruptedException {
        return phase(label, BenchOptions.builder(target, requests()).openLoop(newConnectionRate, 256)
                .header("Connection", "close"), recorded, PHASE_RAMP);
    }

    private RequestSource requests() {
        GeneratorSpec spec = GeneratorSpec.defaults().withStreamFraction(streamFraction).withMaxTokens(16);
        return RequestSources.generated(spec);
    }

    /** The rounds ({direct, gateway} each) and the closed-loop pair. */
    private final class Report implements ScenarioReport {

        private final List<BenchReport[]> rounds;
        private final BenchReport closedDirect;
        private final BenchReport closedGateway;
        private final TlsOverheadReport tls;
        private final TelemetryOverheadReport telemetry;
        private final Http2OverheadReport http2;

        Report(List<BenchReport[]> rounds, BenchReport closedDirect, BenchReport closedGateway, TlsOverheadReport tls,
               TelemetryOverheadReport telemetry, Http2OverheadReport http2) {
            this.rounds = rounds;
            this.closedDirect = closedDirect;
            this.closedGateway = closedGateway;
            this.tls = tls;
            this.telemetry = telemetry;
            this.http2 = http2;
        }

        double ratio() {
            return closedGateway.throughput() / closedDirect.throughput();
        }

        double medianAdded(int percentile) {
            return Medians.of(rounds.stream().mapToDouble(r -> percentile == 50
                    ? r[1].total().p50Ms() - r[0].total().p50Ms() : r[1].total().p99Ms() - r[0].total().p99Ms()));
        }

        @Override
        public String failure() {
            long errors = rounds.stream().mapToLong(r -> r[1].errors()).sum() + closedGateway.errors()
                    + (tls == null ? 0 : tls.errors()) + (telemetry == null ? 0 : telemetry.errors())
                    + (http2 == null ? 0 : http2.errors());
            return errors == 0 ? null : errors + " requests through the gateway failed";
        }

        @Override
        public JsonNode json() {
            ObjectNode out = BenchJson.object().put("rate", rate);
            ArrayNode rs = out.putArray("rounds");
            for (BenchReport[] r : rounds) {
                rs.addObject().<ObjectNode>set("direct", BenchJson.tree(r[0])).set("gateway", BenchJson.tree(r[1]));
            }
            out.put("medianAddedP50Ms", medianAdded(50)).put("medianAddedP99Ms", medianAdded(99));
            out.set("closedDirect", BenchJson.tree(closedDirect));
            out.set("closedGateway", BenchJson.tree(closedGateway));
            out.put("throughputRatio", ratio());
            if (tls != null) {
                out.set("tls", tls.json());
            }
            if (telemetry != null) {
                out.set("telemetry", telemetry.json());
            }
            if (http2 != null) {
                out.set("http2", http2.json());
            }
            return out;
        }

        @Override
        public String toText() {
            ReportText out = new ReportText();
            out.line("%nGateway overhead at %.0f requests/s (open loop, latency from intended send time), %d cores", rate,
                    Runtime.getRuntime().availableProcessors());
            out.line("%-19s %9s %9s %9s %9s %8s", "", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "errors");
            for (int i = 0; i < rounds.size(); i++) {
                LatencySummary d = rounds.get(i)[0].total();
                LatencySummary g = rounds.get(i)[1].total();
                row(out, "round " + (i + 1) + " direct", d, rounds.get(i)[0].errors());
                row(out, "round " + (i + 1) + " gateway", g, rounds.get(i)[1].errors());
                out.line("%-19s %9.3f %9.3f %9.3f %9.3f", "round " + (i + 1) + " added", g.p50Ms() - d.p50Ms(),
                        g.p90Ms() - d.p90Ms(), g.p99Ms() - d.p99Ms(), g.p999Ms() - d.p999Ms());
            }
            out.line("%nAdded by the gateway, median of %d rounds: p50 %.3f ms, p99 %.3f ms", rounds.size(),
                    medianAdded(50), medianAdded(99));
            out.line("Throughput, closed loop with %d connections: direct %.0f/s, via gateway %.0f/s, ratio %.2f",
                    connections, closedDirect.throughput(), closedGateway.throughput(), ratio());
            if (tls != null) {
                tls.text(out);
            }
            if (telemetry != null) {
                telemetry.text(out);
            }
            if (http2 != null) {
                http2.text(out);
            }
            return out.toString();
        }

        private static void row(ReportText out, String label, LatencySummary s, long errors) {
            out.line("%-19s %9.3f %9.3f %9.3f %9.3f %8d", label, s.p50Ms(), s.p90Ms(), s.p99Ms(), s.p999Ms(), errors);
        }
    }
}
