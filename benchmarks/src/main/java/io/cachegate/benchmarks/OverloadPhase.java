package io.cachegate.benchmarks;

import io.cachegate.bench.BenchOptions;
import io.cachegate.bench.BenchReport;
import io.cachegate.bench.LoadGenerator;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One phase of {@code bench overload}: from rest, open-loop interactive load (and batch load, and the two
 * latency-per-status probes when batch is on) through one gateway, while the gateway's queues, the simulator's
 * queue and the gateway's resident memory are sampled; then what the gateway rejected meanwhile.
 */
final class OverloadPhase {

    private static final Duration SAMPLE_EVERY = Duration.ofMillis(250);
    private static final Pattern REJECTIONS = Pattern.compile(
            "(?m)^cachegate_admission_rejections_total\\{([^}]*)}\\s+(\\S+)");

    /** One gateway under test. */
    record Target(ChildGateway gateway, boolean admission) {
        String name() {
            return gateway.name();
        }
    }

    /** What one phase measured. */
    record Phase(String name, BenchReport interactive, BenchReport batch, StatusProbe.Result interactiveProbe,
                 StatusProbe.Result batchProbe, Maxima maxima, Map<String, Double> rejections) {
    }

    /**
     * The largest values sampled during a phase, and the successful answers per second of each class over
     * the recorded window, from the gateway's {@code cachegate_requests_total{route,status="200"}}.
     */
    record Maxima(double interactiveQueue, double batchQueue, int simQueued, int simActive, long gatewayRssKib,
                  boolean overloaded, double interactiveOkPerSecond, double batchOkPerSecond) {
    }

    private final HttpClient http;
    private final URI sim;
    private final Progress progress;
    private final double probeShare;
    private final int maxTokens;
    private final Duration requestTimeout;

    OverloadPhase(HttpClient http, URI sim, Progress progress, double probeShare, int maxTokens,
                  Duration requestTimeout) {
        this.http = http;
        this.sim = sim;
        this.progress = progress;
        this.probeShare = probeShare;
        this.maxTokens = maxTokens;
        this.requestTimeout = requestTimeout;
    }

    Phase run(String label, Target g, double interactiveRate, double batchRate, Duration recorded, Duration warm)
            throws Exception {
        awaitIdle(g);
        progress.info("== %s", label);
        Map<String, Double> rejectionsBefore = rejections(g);
        boolean mixed = batchRate > 0;
        double share = mixed ? probeShare : 0;
        URI uri = g.gateway().uri();
        ExecutorService pool = Executors.newCachedThreadPool();
        AtomicBoolean running = new AtomicBoolean(true);
        try {
            long windowStart = System.nanoTime() + warm.toNanos();
            long windowEnd = windowStart + recorded.toNanos();
            Future<Maxima> maxima = pool.submit(() -> sample(g, running, windowStart, windowEnd));
            Future<BenchReport> interactive = pool.submit(() -> load(uri, interactiveRate * (1 - share), Map.of(),
                    recorded, warm, bodies(BenchOverloadCommand.MODEL, "interactive")));
            Future<BenchReport> batch = mixed ? pool.submit(() -> load(uri, batchRate * (1 - share),
                    Map.of("X-Priority", "batch"), recorded, warm, bodies(BenchOverloadCommand.BATCH_MODEL, "batch")))
                    : null;
            Future<StatusProbe.Result> interactiveProbe = share > 0 ? pool.submit(() -> StatusProbe.run(uri,
                    ChatRequests.PATH, bodies(BenchOverloadCommand.MODEL, "probe interactive"), Map.of(),
                    interactiveRate * share, warm, recorded, requestTimeout)) : null;
            Future<StatusProbe.Result> batchProbe = share > 0 ? pool.submit(() -> StatusProbe.run(uri,
                    ChatRequests.PATH, bodies(BenchOverloadCommand.BATCH_MODEL, "probe batch"),
                    Map.of("X-Priority", "batch"), batchRate * share, warm, recorded, requestTimeout)) : null;
            BenchReport i = interactive.get();
            BenchReport b = batch == null ? null : batch.get();
            StatusProbe.Result ip = interactiveProbe == null ? null : interactiveProbe.get();
            StatusProbe.Result bp = batchProbe == null ? null : batchProbe.get();
            running.set(false);
            Maxima m = maxima.get();
            Map<String, Double> delta = new LinkedHashMap<>();
            rejections(g).forEach((k, v) -> {
                double d = v - rejectionsBefore.getOrDefault(k, 0.0);
                if (d > 0) {
                    delta.put(k, d);
                }
            });
            progress.info("ok/s interactive %.1f, batch %.1f; interactive %s; batch %s; max queue interactive %.0f, "
                            + "batch %.0f, simulator %d; gateway RSS %d MiB", m.interactiveOkPerSecond(),
                    m.batchOkPerSecond(), i.statusCounts(), b == null ? "-" : b.statusCounts(), m.interactiveQueue(),
                    m.batchQueue(), m.simQueued(), m.gatewayRssKib() / 1024);
            return new Phase(label, i, b, ip, bp, m, delta);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception ex ? ex : e;
        } finally {
            running.set(false);
            pool.shutdownNow();
        }
    }

    private BenchReport load(URI target, double rate, Map<String, String> headers, Duration recorded, Duration warm,
                             List<byte[]> bodies) throws InterruptedException {
        // Enough connections for every request of a timeout's worth to be in flight: the generator never backs up.
        int connections = (int) Math.min(8000, Math.ceil(rate * requestTimeout.toNanos() / 1e9) + 16);
        BenchOptions options = BenchOptions.builder(target, ChatRequests.inOrder(bodies, true))
                .openLoop(rate, connections).duration(recorded).warmup(warm).requestTimeout(requestTimeout)
                .headers(headers).progress(false).build();
        return LoadGenerator.run(options);
    }

    /**
     * Samples queue depths, the simulator's queue and the gateway's RSS until {@code running} turns false, and
     * the gateway's successful answers per route at the first samples after the window's start and end.
     */
    private Maxima sample(Target g, AtomicBoolean running, long windowStart, long windowEnd) throws Exception {
        URI metrics = g.gateway().admin().resolve("/metrics");
        double[] okAtStart = null;
        double[] okAtEnd = null;
        long startedAt = 0;
        long endedAt = 0;
        double interactive = 0;
        double batch = 0;
        int simQueued = 0;
        int simActive = 0;
        long rss = 0;
        boolean overloaded = false;
        while (running.get()) {
            String page = BenchScrapes.get(http, metrics);
            long now = System.nanoTime();
            if (okAtStart == null && now - windowStart >= 0) {
                okAtStart = successes(page);
                startedAt = now;
            } else if (okAtEnd == null && okAtStart != null && now - windowEnd >= 0) {
                okAtEnd = successes(page);
                endedAt = now;
            }
            if (g.admission()) {
                interactive = Math.max(interactive, orZero(BenchScrapes.metric(page, "cachegate_queue_depth",
                        "class=\"interactive\"")));
                batch = Math.max(batch, orZero(BenchScrapes.metric(page, "cachegate_queue_depth", "class=\"batch\"")));
                overloaded |= orZero(BenchScrapes.metric(page, "cachegate_admission_overloaded", "")) > 0;
            }
            BenchScrapes.SimStats s = BenchScrapes.simStats(http, sim);
            simQueued = Math.max(simQueued, s.queued());
            simActive = Math.max(simActive, s.active());
            rss = Math.max(rss, BenchScrapes.rssKib(g.gateway().process().pid()));
            Thread.sleep(SAMPLE_EVERY.toMillis());
        }
        if (okAtStart != null && okAtEnd == null) {
            // The load ended before a sample fell after the window's end: count up to now (a few samples' more).
            okAtEnd = successes(BenchScrapes.get(http, metrics));
            endedAt = System.nanoTime();
        }
        double seconds = (endedAt - startedAt) / 1e9;
        double okInteractive = okAtEnd == null ? Double.NaN : (okAtEnd[0] - okAtStart[0]) / seconds;
        double okBatch = okAtEnd == null ? Double.NaN : (okAtEnd[1] - okAtStart[1]) / seconds;
        return new Maxima(interactive, batch, simQueued, simActive, rss, overloaded, okInteractive, okBatch);
    }

    /** Successful answers so far: interactive (route 1, the catch-all), batch (route 0, the batch model). */
    private static double[] successes(String page) {
        return new double[] {
            orZero(BenchScrapes.metric(page, "cachegate_requests_total", "route=\"1\"", "status=\"200\"")),
            orZero(BenchScrapes.metric(page, "cachegate_requests_total", "route=\"0\"", "status=\"200\""))
        };
    }

    /** Rejections so far by class and reason, from the gateway's {@code cachegate_admission_rejections_total}. */
    private Map<String, Double> rejections(Target g) throws Exception {
        Map<String, Double> out = new LinkedHashMap<>();
        if (!g.admission()) {
            return out;
        }
        Matcher m = REJECTIONS.matcher(BenchScrapes.get(http, g.gateway().admin().resolve("/metrics")));
        while (m.find()) {
            String cls = BenchOverloadCommand.label(m.group(1), "class");
            String reason = BenchOverloadCommand.label(m.group(1), "reason");
            out.merge(cls + "/" + reason, Double.parseDouble(m.group(2)), Double::sum);
        }
        return out;
    }

    /** Waits (up to 60 s) until the simulator and the gateway's queues are empty: a phase starts from rest. */
    private void awaitIdle(Target g) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            boolean idle = BenchScrapes.simStats(http, sim).idle();
            if (idle && g.admission()) {
                String page = BenchScrapes.get(http, g.gateway().admin().resolve("/metrics"));
                idle = orZero(BenchScrapes.metric(page, "cachegate_queue_depth", "")) == 0;
            }
            if (idle) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the simulator or the gateway's queues did not drain within 60 s");
            }
            Thread.sleep(200);
        }
    }

    private static double orZero(double v) {
        return Double.isNaN(v) ? 0 : v;
    }

    /** 64 distinct sampled, streamed chat requests; {@code tag} keeps the request sets of the senders apart. */
    private List<byte[]> bodies(String model, String tag) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            var body = BenchJson.object().put("model", model).put("temperature", 0.7).put("max_tokens", maxTokens)
                    .put("stream", true);
            body.putArray("messages").addObject().put("role", "user")
                    .put("content", tag + " request " + i + ": summarise the plot of a novel you like in a few sentences.");
            out.add(BenchJson.bytes(body));
        }
        return out;
    }
}
