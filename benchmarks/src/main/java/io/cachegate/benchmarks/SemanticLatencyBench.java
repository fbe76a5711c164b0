package io.cachegate.benchmarks;

import io.cachegate.bench.BenchOptions;
import io.cachegate.bench.BenchReport;
import io.cachegate.bench.LoadGenerator;
import io.cachegate.bench.RequestSource;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Part 1 of {@code bench semantic}: what the semantic layer adds to a miss. Starts a zero-latency simulator
 * and two gateways with the same policy but for the semantic cache (on in one, off in the other) as child
 * processes, then sends never-repeating deterministic chat requests in open loop at a fixed rate to each, in
 * alternating rounds. Every request is an exact miss; the gateway's own counters tell whether any was a
 * semantic hit, and its histograms give the embed and search times of the measured rounds.
 */
final class SemanticLatencyBench {

    private static final Duration PHASE_RAMP = Duration.ofSeconds(2);
    private static final Progress PROGRESS = new Progress("semantic latency");
    static final String EMBED_HISTOGRAM = "cachegate_semantic_embed_latency_seconds";
    static final String SEARCH_HISTOGRAM = "cachegate_semantic_search_latency_seconds";

    /**
     * How the two gateways are run and loaded.
     *
     * @param speculative whether the semantic gateway sends a miss upstream while its lookup runs
     * @param simTtftMs the simulator's time to first token (0: it answers at once)
     */
    record Settings(double rate, Duration duration, Duration warmup, int rounds, int gatewayThreads,
                    EmbedderThroughputBench.Variant embedder, boolean speculative, long simTtftMs) {
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

        double medianOff(ToDoubleFunction<BenchReport> f) {
            return Medians.of(rounds.stream().mapToDouble(r -> f.applyAsDouble(r.off())));
        }

        double medianOn(ToDoubleFunction<BenchReport> f) {
            return Medians.of(rounds.stream().mapToDouble(r -> f.applyAsDouble(r.on())));
        }

        /** The median over rounds of (on - off), like {@code bench overhead}. */
        double medianAdded(ToDoubleFunction<BenchReport> f) {
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

    /** What one gateway did in one round: the load's report, the backend calls, the histograms' growth. */
    private record Step(BenchReport report, long backendCalls, PrometheusHistogram embed, PrometheusHistogram search) {
    }

    private final Settings settings;
    private final HttpClient http = BenchScrapes.client();

    SemanticLatencyBench(Settings settings) {
        this.settings = settings;
    }

    Result run(BenchChildren children) throws IOException, InterruptedException {
        ChildSimulator sim = children.simulator("sim", 1, "--ttft-ms", Long.toString(settings.simTtftMs()));
        ChildGateway off = children.gateway("semantic-off", List.of(), policy(sim, false, children));
        ChildGateway on = children.gateway("semantic-on", List.of(), policy(sim, true, children));
        sim.awaitReady();
        off.awaitReady();
        on.awaitReady();
        PROGRESS.info("simulator on %s, gateway semantic-off on %s, semantic-on on %s (logs %s)", sim.uri(), off.uri(),
                on.uri(), children.log("*"));
        // One sequence for every phase of both gateways: no request is ever sent twice.
        DistinctPrompts source = new DistinctPrompts(0);
        for (ChildGateway g : List.of(off, on)) {
            load(g.uri(), source, settings.warmup(), Duration.ZERO, "warm-up " + g.name() + " (not recorded)");
        }
        List<Round> rounds = new ArrayList<>();
        PrometheusHistogram embed = PrometheusHistogram.empty();
        PrometheusHistogram search = PrometheusHistogram.empty();
        for (int r = 0; r < settings.rounds(); r++) {
            Step[] steps = new Step[2];
            for (ChildGateway g : Scenario.rotated(List.of(off, on), r)) {  // drift on the machine falls on both alike
                steps[g == off ? 0 : 1] = step(g, sim, source, "round " + (r + 1) + ": open loop at "
                        + Math.round(settings.rate()) + "/s, " + g.name());
            }
            embed = embed.plus(steps[1].embed());
            search = search.plus(steps[1].search());
            rounds.add(new Round(steps[0].report(), steps[1].report(), steps[0].backendCalls(), steps[1].backendCalls()));
        }
        Map<String, Long> lookups = BenchScrapes.lookups(BenchScrapes.get(http, on.admin().resolve("/metrics")));
        long errors = rounds.stream().mapToLong(r -> r.off().errors() + r.on().errors()).sum();
        return new Result(settings, rounds, lookups, embed.quantile(0.5) * 1e3, embed.quantile(0.99) * 1e3,
                search.quantile(0.5) * 1e3, search.quantile(0.99) * 1e3, errors);
    }

    private Step step(ChildGateway g, ChildSimulator sim, RequestSource source, String label)
            throws IOException, InterruptedException {
        URI metrics = g.admin().resolve("/metrics");
        String before = BenchScrapes.get(http, metrics);
        long simBefore = BenchScrapes.simStats(http, sim.uri()).requests();
        BenchReport report = load(g.uri(), source, settings.duration(), PHASE_RAMP, label);
        long backend = BenchScrapes.simStats(http, sim.uri()).requests() - simBefore;
        String after = BenchScrapes.get(http, metrics);
        return new Step(report, backend, growth(before, after, EMBED_HISTOGRAM), growth(before, after, SEARCH_HISTOGRAM));
    }

    private static PrometheusHistogram growth(String before, String after, String name) {
        return PrometheusHistogram.parse(after, name).minus(PrometheusHistogram.parse(before, name));
    }

    /** The same policy for both gateways but for {@code cache.semantic.enabled} and the route's {@code semantic}. */
    private GatewayPolicy policy(ChildSimulator sim, boolean semantic, BenchChildren children) {
        EmbedderThroughputBench.Variant e = settings.embedder();
        return GatewayPolicy.of(settings.gatewayThreads(), sim)
                .pinModelVersion()
                .section("""
                        cache:
                          exact:
                            store: memory
                          semantic:
                            enabled: %b
                            path: "%s"
                            speculative_upstream: %b
                            embedder: { max_batch: %d, workers: %d, intra_op_threads: %d }
                        """.formatted(semantic, children.dir().resolve("index").toString().replace("\\", "/"),
                        settings.speculative(), e.maxBatch(), e.workers(), e.intraOpThreads()))
                .route("*", "cache: { exact: true, semantic: " + semantic + " }");
    }

    private BenchReport load(URI target, RequestSource source, Duration recorded, Duration ramp, String label)
            throws InterruptedException {
        PROGRESS.phase(label);
        BenchOptions options = BenchOptions.builder(target, source).openLoop(settings.rate(), 256)
                .duration(recorded).warmup(ramp).progress(false).requestTimeout(Duration.ofSeconds(10)).build();
        BenchReport report = LoadGenerator.run(options);
        PROGRESS.info("%d requests, %d errors, p50 %.3f ms, p99 %.3f ms", report.requests(), report.errors(),
                report.total().p50Ms(), report.total().p99Ms());
        return report;
    }
}
