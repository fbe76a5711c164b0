package io.cachegate.cli;

import io.cachegate.bench.BenchOptions;
import io.cachegate.bench.BenchReport;
import io.cachegate.bench.LoadGenerator;
import io.cachegate.bench.RequestSource;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Part 1 of {@code bench semantic}: what the semantic layer adds to a miss. Starts a zero-latency simulator
 * and two gateways with the same policy but for the semantic cache (on in one, off in the other) as child
 * processes, then sends never-repeating deterministic chat requests in open loop at a fixed rate to each, in
 * alternating rounds. Every request is an exact miss; the gateway's own counters tell whether any was a
 * semantic hit, and its histograms give the embed and search times of the measured rounds.
 */
final class SemanticLatencyBench {

    private static final Duration PHASE_RAMP = Duration.ofSeconds(2);
    private static final Pattern SIM_REQUESTS = Pattern.compile("\"requests\"\\s*:\\s*(\\d+)");
    private static final Pattern LOOKUPS = Pattern.compile("(?m)^cachegate_cache_lookups_total\\{([^}]*)}\\s+(\\S+)$");
    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");
    static final String EMBED_HISTOGRAM = "cachegate_semantic_embed_latency_seconds";
    static final String SEARCH_HISTOGRAM = "cachegate_semantic_search_latency_seconds";

    /** How the two gateways are run and loaded. */
    record Settings(double rate, Duration duration, Duration warmup, int rounds, int gatewayThreads,
                    String childJvmOpts, EmbedderThroughputBench.Variant embedder) {
    }

    /** One round: the same load on the gateway without and with the semantic layer. */
    record Round(BenchReport off, BenchReport on, long offBackendCalls, long onBackendCalls) {
    }

    /**
     * The part's figures.
     *
     * @param lookups the semantic gateway's {@code cachegate_cache_lookups_total} by "layer/outcome", whole run
     * @param embedP50Ms from the gateway's embed histogram over the measured rounds, to its bucket bound
     */
    record Result(Settings settings, List<Round> rounds, Map<String, Long> lookups, double embedP50Ms,
                  double embedP99Ms, double searchP50Ms, double searchP99Ms, long errors) {

        double medianOff(java.util.function.ToDoubleFunction<BenchReport> f) {
            return Medians.of(rounds.stream().mapToDouble(r -> f.applyAsDouble(r.off())));
        }

        double medianOn(java.util.function.ToDoubleFunction<BenchReport> f) {
            return Medians.of(rounds.stream().mapToDouble(r -> f.applyAsDouble(r.on())));
        }

        /** The median over rounds of (on - off), like {@code bench overhead}. */
        double medianAdded(java.util.function.ToDoubleFunction<BenchReport> f) {
            return Medians.of(rounds.stream().mapToDouble(r -> f.applyAsDouble(r.on()) - f.applyAsDouble(r.off())));
        }

        /** Requests of the measured rounds answered without a backend call: semantic (or exact) hits. */
        long servedWithoutBackend() {
            long sum = 0;
            for (Round r : rounds) {
                sum += Math.max(0, r.on().requests() - r.onBackendCalls());
            }
            return sum;
        }
    }

    private final Settings settings;

    SemanticLatencyBench(Settings settings) {
        this.settings = settings;
    }

    Result run() throws IOException, InterruptedException {
        try (BenchChildren children = new BenchChildren("semantic", settings.childJvmOpts())) {
            return run(children);
        }
    }

    private Result run(BenchChildren children) throws IOException, InterruptedException {
        int simPort = LocalProcesses.freePort();
        children.start("sim", "simulate-backend", "--port", Integer.toString(simPort));
        URI sim = URI.create("http://127.0.0.1:" + simPort);
        URI[] gateways = new URI[2];
        URI[] admins = new URI[2];
        for (int i = 0; i < 2; i++) {
            boolean semantic = i == 1;
            int port = LocalProcesses.freePort();
            int admin = LocalProcesses.freePort();
            Path policy = children.dir().resolve("policy-" + name(semantic) + ".yaml");
            Files.writeString(policy, policy(port, admin, simPort, semantic, children.dir().resolve("index")));
            children.start("gateway-" + name(semantic), "serve", "--config", policy.toString());
            gateways[i] = URI.create("http://127.0.0.1:" + port);
            admins[i] = URI.create("http://127.0.0.1:" + admin);
        }
        LocalProcesses.awaitPort(simPort);
        for (URI g : gateways) {
            LocalProcesses.awaitPort(g.getPort());
        }
        info("simulator on %s, gateway semantic-off on %s, semantic-on on %s (logs %s)", sim, gateways[0],
                gateways[1], LocalProcesses.logFile("semantic-*"));

        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        // One sequence for every phase of both gateways: no request is ever sent twice.
        DistinctPrompts source = new DistinctPrompts(0);
        for (int i = 0; i < 2; i++) {
            load(gateways[i], source, settings.warmup(), Duration.ZERO, "warm-up " + name(i == 1) + " (not recorded)");
        }
        List<Round> rounds = new ArrayList<>();
        PrometheusHistogram embed = PrometheusHistogram.empty();
        PrometheusHistogram search = PrometheusHistogram.empty();
        for (int r = 0; r < settings.rounds(); r++) {
            BenchReport[] reports = new BenchReport[2];
            long[] backend = new long[2];
            for (int step = 0; step < 2; step++) {
                int i = (step + r) % 2;  // rotate the order, so drift on the machine falls on both alike
                String before = i == 1 ? get(http, admins[1].resolve("/metrics")) : "";
                long simBefore = simRequests(http, sim);
                reports[i] = load(gateways[i], source, settings.duration(), PHASE_RAMP,
                        "round " + (r + 1) + ": open loop at " + Math.round(settings.rate()) + "/s, " + name(i == 1));
                backend[i] = simRequests(http, sim) - simBefore;
                if (i == 1) {
                    String after = get(http, admins[1].resolve("/metrics"));
                    embed = embed.plus(PrometheusHistogram.parse(after, EMBED_HISTOGRAM)
                            .minus(PrometheusHistogram.parse(before, EMBED_HISTOGRAM)));
                    search = search.plus(PrometheusHistogram.parse(after, SEARCH_HISTOGRAM)
                            .minus(PrometheusHistogram.parse(before, SEARCH_HISTOGRAM)));
                }
            }
            rounds.add(new Round(reports[0], reports[1], backend[0], backend[1]));
        }
        Map<String, Long> lookups = lookups(get(http, admins[1].resolve("/metrics")));
        long errors = rounds.stream().mapToLong(r -> r.off().errors() + r.on().errors()).sum();
        return new Result(settings, rounds, lookups, embed.quantile(0.5) * 1e3, embed.quantile(0.99) * 1e3,
                search.quantile(0.5) * 1e3, search.quantile(0.99) * 1e3, errors);
    }

    private static String name(boolean semantic) {
        return semantic ? "semantic-on" : "semantic-off";
    }

    /** The same policy for both gateways but for {@code cache.semantic.enabled} and the route's {@code semantic}. */
    String policy(int port, int adminPort, int simPort, boolean semantic, Path indexDir) {
        EmbedderThroughputBench.Variant e = settings.embedder();
        return """
                server: { host: 127.0.0.1, port: %d, admin_port: %d, io_threads: %d, shutdown_grace: 1s }
                backends:
                  - name: sim
                    urls: ["http://127.0.0.1:%d"]
                    model_version: "bench@1"
                    max_connections_per_url: 256
                cache:
                  exact:
                    store: memory
                  semantic:
                    enabled: %b
                    path: "%s"
                    embedder: { max_batch: %d, workers: %d, intra_op_threads: %d }
                routes:
                  - match: { model: "*" }
                    backend: sim
                    cache: { exact: true, semantic: %b }
                """.formatted(port, adminPort, settings.gatewayThreads(), simPort, semantic,
                indexDir.toString().replace("\\", "/"), e.maxBatch(), e.workers(), e.intraOpThreads(), semantic);
    }

    private BenchReport load(URI target, RequestSource source, Duration recorded, Duration ramp, String label)
            throws InterruptedException {
        System.err.println("== " + label);
        BenchOptions options = BenchOptions.builder(target, source).openLoop(settings.rate(), 256)
                .duration(recorded).warmup(ramp).progress(false).requestTimeout(Duration.ofSeconds(10)).build();
        BenchReport report = LoadGenerator.run(options);
        System.err.printf(Locale.ROOT, "   %d requests, %d errors, p50 %.3f ms, p99 %.3f ms%n", report.requests(),
                report.errors(), report.total().p50Ms(), report.total().p99Ms());
        return report;
    }

    private static String get(HttpClient http, URI uri) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("GET " + uri + " answered " + r.statusCode());
        }
        return r.body();
    }

    private static long simRequests(HttpClient http, URI sim) throws IOException, InterruptedException {
        String body = get(http, sim.resolve("/sim/stats"));
        Matcher m = SIM_REQUESTS.matcher(body);
        if (!m.find()) {
            throw new IllegalStateException("unexpected /sim/stats answer: " + body);
        }
        return Long.parseLong(m.group(1));
    }

    /** {@code cachegate_cache_lookups_total} by "layer/outcome". */
    static Map<String, Long> lookups(String page) {
        Map<String, Long> out = new LinkedHashMap<>();
        Matcher m = LOOKUPS.matcher(page);
        while (m.find()) {
            Map<String, String> labels = new LinkedHashMap<>();
            Matcher l = LABEL.matcher(m.group(1));
            while (l.find()) {
                labels.put(l.group(1), l.group(2));
            }
            out.merge(labels.getOrDefault("layer", "?") + "/" + labels.getOrDefault("outcome", "?"),
                    (long) Double.parseDouble(m.group(2)), Long::sum);
        }
        return out;
    }

    private static void info(String format, Object... args) {
        System.err.printf(Locale.ROOT, "semantic latency: " + format + "%n", args);
    }
}
