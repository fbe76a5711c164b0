package io.cachegate.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.cachegate.bench.BenchOptions;
import io.cachegate.bench.BenchReport;
import io.cachegate.bench.BenchRequest;
import io.cachegate.bench.LoadGenerator;
import io.cachegate.bench.RequestSource;
import io.cachegate.config.Durations;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cachegate bench overload}: admission control under three times the backend's capacity. Starts
 * a simulator with a concurrency limit, a gateway with admission on and one with admission off (plain
 * proxying), and in alternating rounds measures interactive traffic alone (the unloaded baseline), then
 * interactive plus batch ({@code X-Priority: batch}) through each gateway. Reports interactive time to
 * first token against the baseline, batch goodput, how fast rejections come back, queue depths and the
 * gateway's resident memory.
 */
@Command(name = "overload", mixinStandardHelpOptions = true,
        description = {
            "Admission control at 3x the backend's capacity C, against the same gateway with admission off "
                    + "(plain proxying) at the same offered load, and against interactive traffic alone (unloaded).",
            "C = --max-concurrency / (ttft + (max-tokens - 1) x tpot) requests/s of one simulator replica. Offered: "
                    + "interactive at --interactive-load x C plus batch (X-Priority: batch) at --batch-load x C, "
                    + "streamed, sampled (temperature 0.7, cache off), open loop. A --probe-share of each class is "
                    + "sent by a probe that keeps every answer's latency, for the latency of the 429s.",
            "Exit status 1 on unexpected errors: connection errors, 5xx other than 503, timeouts with admission "
                    + "on, or load-generator backlog."
        })
final class BenchOverloadCommand implements Callable<Integer> {

    private static final String PATH = "/v1/chat/completions";
    private static final String MODEL = "llama-3.1-8b";
    /** Batch requests name their own model id, served alike, so the gateway's per-route counters split the classes. */
    private static final String BATCH_MODEL = "llama-3.1-8b-batch";
    private static final Duration SAMPLE_EVERY = Duration.ofMillis(250);
    /** Error kinds that are the expected outcome of overload; timeouts only without admission. */
    private static final Set<String> EXPECTED = Set.of("http_429", "http_503");
    private static final Set<String> EXPECTED_WITHOUT_ADMISSION = Set.of("http_429", "http_503", "timeout",
            "unfinished");

    @Option(names = "--max-concurrency", defaultValue = "8",
            description = "Simulator: sequences served at once (gateway max_concurrency too) (default ${DEFAULT-VALUE}).")
    int maxConcurrency;

    @Option(names = "--ttft-ms", defaultValue = "100", description = "Simulator: time to first token (default ${DEFAULT-VALUE}).")
    int ttftMs;

    @Option(names = "--tpot-ms", defaultValue = "10", description = "Simulator: time per output token (default ${DEFAULT-VALUE}).")
    double tpotMs;

    @Option(names = "--max-tokens", defaultValue = "16", description = "max_tokens of every request (default ${DEFAULT-VALUE}).")
    int maxTokens;

    @Option(names = "--interactive-load", defaultValue = "0.5",
            description = "Interactive rate as a multiple of C (default ${DEFAULT-VALUE}).")
    double interactiveLoad;

    @Option(names = "--batch-load", defaultValue = "2.5",
            description = "Batch rate as a multiple of C (default ${DEFAULT-VALUE}: 3 x C offered in all).")
    double batchLoad;

    @Option(names = "--interactive-max-queue-time", defaultValue = "2s",
            description = "classes.interactive.max_queue_time (default ${DEFAULT-VALUE}).")
    String interactiveMaxQueue;

    @Option(names = "--batch-max-queue-time", defaultValue = "10s",
            description = "classes.batch.max_queue_time (default ${DEFAULT-VALUE}).")
    String batchMaxQueue;

    @Option(names = "--batch-max-inflight-share", defaultValue = "0.5",
            description = "classes.batch.max_inflight_share: the share of the backend's slots batch may hold, so "
                    + "interactive requests find one free instead of waiting for a batch request to end "
                    + "(default ${DEFAULT-VALUE}).")
    double batchMaxInflightShare;

    @Option(names = "--probe-share", defaultValue = "0.1",
            description = "Share of each class's requests sent by the latency-per-status probe (default ${DEFAULT-VALUE}).")
    double probeShare;

    @Option(names = "--duration", defaultValue = "15s", description = "Recorded time of each phase (default ${DEFAULT-VALUE}).")
    String duration;

    @Option(names = "--warmup", defaultValue = "3s", description = "Unrecorded start of each phase (default ${DEFAULT-VALUE}).")
    String warmup;

    @Option(names = "--rounds", defaultValue = "2",
            description = "Rounds; each runs unloaded, admission on and admission off (the last two alternating "
                    + "in order); medians are reported (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--timeout", defaultValue = "12s",
            description = "Client request timeout; keep it above the batch max queue time (default ${DEFAULT-VALUE}).")
    String timeout;

    @Option(names = "--gateway-threads", defaultValue = "0",
            description = "Gateway event loop threads; 0 = one per core (default ${DEFAULT-VALUE}).")
    int gatewayThreads;

    @Option(names = "--child-jvm-opts", defaultValue = "-Xmx1g -XX:+UseParallelGC",
            description = "JVM options of the simulator and gateways (default ${DEFAULT-VALUE}).")
    String childJvmOpts;

    @Option(names = "--json", description = "Print the result as JSON.")
    boolean json;

    /** One gateway under test. */
    private record Gateway(String name, URI uri, URI admin, Process process, boolean admission) {
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

    @Override
    public Integer call() throws Exception {
        Duration recorded = Durations.parse(duration);
        Duration warm = Durations.parse(warmup);
        Duration requestTimeout = Durations.parse(timeout);
        if (rounds < 1 || maxConcurrency < 1 || maxTokens < 1 || !(probeShare >= 0 && probeShare < 1)
                || interactiveLoad <= 0 || batchLoad < 0 || !(batchMaxInflightShare > 0 && batchMaxInflightShare <= 1)) {
            throw new IllegalArgumentException("--rounds, --max-concurrency, --max-tokens and --interactive-load must be "
                    + "positive, --batch-load >= 0, --probe-share in [0, 1), --batch-max-inflight-share in (0, 1]");
        }
        double capacity = capacity(maxConcurrency, ttftMs, tpotMs, maxTokens);
        double interactiveRate = interactiveLoad * capacity;
        double batchRate = batchLoad * capacity;
        try (BenchChildren children = new BenchChildren("overload", childJvmOpts)) {
            int simPort = LocalProcesses.freePort();
            children.start("sim", "simulate-backend", "--port", Integer.toString(simPort),
                    "--max-concurrency", Integer.toString(maxConcurrency), "--ttft-ms", Integer.toString(ttftMs),
                    "--tpot-ms", Double.toString(tpotMs), "--max-queue", "100000", "--models", MODEL + "," + BATCH_MODEL);
            URI sim = URI.create("http://127.0.0.1:" + simPort);
            List<Gateway> gateways = new ArrayList<>();
            for (boolean admission : new boolean[] {true, false}) {
                String name = admission ? "admission-on" : "admission-off";
                int port = LocalProcesses.freePort();
                int admin = LocalProcesses.freePort();
                Path policy = children.dir().resolve(name + ".yaml");
                Files.writeString(policy, policy(port, admin, simPort, admission, capacity));
                Process p = children.start("gateway-" + name, "serve", "--config", policy.toString());
                gateways.add(new Gateway(name, URI.create("http://127.0.0.1:" + port),
                        URI.create("http://127.0.0.1:" + admin), p, admission));
            }
            LocalProcesses.awaitPort(simPort);
            for (Gateway g : gateways) {
                LocalProcesses.awaitPort(g.uri().getPort());
                LocalProcesses.awaitPort(g.admin().getPort());
            }
            info("simulator %s: C = %.1f requests/s (%d at once, %.0f ms each); interactive %.1f/s, batch %.1f/s",
                    sim, capacity, maxConcurrency, 1000 * maxConcurrency / capacity, interactiveRate, batchRate);
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(5)).build();
            Gateway on = gateways.get(0);
            Gateway off = gateways.get(1);
            // JIT and connection pools warm in both gateways and the simulator before anything is recorded.
            for (Gateway g : gateways) {
                phase("warm-up, " + g.name() + " (not recorded)", g, sim, http, interactiveRate, 0,
                        warm.plusSeconds(2), Duration.ZERO, requestTimeout);
            }
            List<Map<String, Phase>> results = new ArrayList<>();
            for (int r = 1; r <= rounds; r++) {
                Map<String, Phase> round = new LinkedHashMap<>();
                round.put("unloaded", phase("round " + r + ": unloaded (interactive alone, admission on)", on, sim,
                        http, interactiveRate, 0, recorded, warm, requestTimeout));
                List<Gateway> order = r % 2 == 1 ? List.of(on, off) : List.of(off, on);
                for (Gateway g : order) {
                    round.put(g.name(), phase("round " + r + ": overload, " + g.name(), g, sim, http, interactiveRate,
                            batchRate, recorded, warm, requestTimeout));
                }
                results.add(round);
            }
            Summary summary = new Summary(results, capacity, interactiveRate, batchRate, recorded.toNanos() / 1e9);
            if (json) {
                System.out.println(summary.toJson());
            } else {
                summary.print();
            }
            long unexpected = summary.unexpectedErrors();
            if (unexpected > 0) {
                System.err.printf("FAILED: %d unexpected errors (see the error kinds above); logs in %s%n",
                        unexpected, children.log("*"));
            }
            return unexpected == 0 ? 0 : 1;
        }
    }

    /** Requests per second one replica completes: {@code concurrency} sequences, each taking its whole answer time. */
    static double capacity(int concurrency, int ttftMs, double tpotMs, int maxTokens) {
        double seconds = (ttftMs + (maxTokens - 1) * tpotMs) / 1000.0;
        return concurrency / seconds;
    }

    /** The error kinds of {@code report} that overload does not explain. */
    static long unexpected(BenchReport report, boolean admission) {
        Set<String> expected = admission ? EXPECTED : EXPECTED_WITHOUT_ADMISSION;
        return report.errorsByKind().entrySet().stream().filter(e -> !expected.contains(e.getKey()))
                .mapToLong(Map.Entry::getValue).sum();
    }

    static long unexpected(StatusProbe.Result probe, boolean admission) {
        long failures = probe.failures().entrySet().stream()
                .filter(e -> !(admission ? Set.<String>of() : Set.of("timeout")).contains(e.getKey()))
                .mapToLong(Map.Entry::getValue).sum();
        long statuses = probe.micros().entrySet().stream()
                .filter(e -> e.getKey() >= 300 && e.getKey() != 429 && e.getKey() != 503)
                .mapToLong(e -> e.getValue().length).sum();
        return failures + statuses;
    }

    /**
     * The most requests that can be waiting when none waits longer than its class's max queue time
     * (Little's law with the wait at its limit): what "bounded" means for the admission queues.
     */
    static double queueBound(double interactiveRate, Duration interactiveMax, double batchRate, Duration batchMax) {
        return interactiveRate * interactiveMax.toNanos() / 1e9 + batchRate * batchMax.toNanos() / 1e9;
    }

    private Phase phase(String label, Gateway g, URI sim, HttpClient http, double interactiveRate, double batchRate,
                        Duration recorded, Duration warm, Duration requestTimeout) throws Exception {
        awaitIdle(http, sim, g);
        info("== %s", label);
        Map<String, Double> rejectionsBefore = rejections(http, g);
        boolean mixed = batchRate > 0;
        double share = mixed ? probeShare : 0;
        ExecutorService pool = Executors.newCachedThreadPool();
        AtomicBoolean running = new AtomicBoolean(true);
        try {
            long windowStart = System.nanoTime() + warm.toNanos();
            long windowEnd = windowStart + recorded.toNanos();
            Future<Maxima> maxima = pool.submit(() -> sample(http, g, sim, running, windowStart, windowEnd));
            Future<BenchReport> interactive = pool.submit(() -> load(g, interactiveRate * (1 - share), Map.of(),
                    recorded, warm, requestTimeout, bodies(MODEL, "interactive")));
            Future<BenchReport> batch = mixed ? pool.submit(() -> load(g, batchRate * (1 - share),
                    Map.of("X-Priority", "batch"), recorded, warm, requestTimeout, bodies(BATCH_MODEL, "batch"))) : null;
            Future<StatusProbe.Result> interactiveProbe = share > 0 ? pool.submit(() -> StatusProbe.run(g.uri(), PATH,
                    bodies(MODEL, "probe interactive"), Map.of(), interactiveRate * share, warm, recorded,
                    requestTimeout)) : null;
            Future<StatusProbe.Result> batchProbe = share > 0 ? pool.submit(() -> StatusProbe.run(g.uri(), PATH,
                    bodies(BATCH_MODEL, "probe batch"), Map.of("X-Priority", "batch"), batchRate * share, warm,
                    recorded, requestTimeout)) : null;
            BenchReport i = interactive.get();
            BenchReport b = batch == null ? null : batch.get();
            StatusProbe.Result ip = interactiveProbe == null ? null : interactiveProbe.get();
            StatusProbe.Result bp = batchProbe == null ? null : batchProbe.get();
            running.set(false);
            Maxima m = maxima.get();
            Map<String, Double> rejectionsAfter = rejections(http, g);
            Map<String, Double> delta = new LinkedHashMap<>();
            rejectionsAfter.forEach((k, v) -> {
                double d = v - rejectionsBefore.getOrDefault(k, 0.0);
                if (d > 0) {
                    delta.put(k, d);
                }
            });
            info("ok/s interactive %.1f, batch %.1f; interactive %s; batch %s; max queue interactive %.0f, batch %.0f, "
                            + "simulator %d; gateway RSS %d MiB", m.interactiveOkPerSecond(), m.batchOkPerSecond(),
                    i.statusCounts(), b == null ? "-" : b.statusCounts(), m.interactiveQueue(), m.batchQueue(),
                    m.simQueued(), m.gatewayRssKib() / 1024);
            return new Phase(label, i, b, ip, bp, m, delta);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception ex ? ex : e;
        } finally {
            running.set(false);
            pool.shutdownNow();
        }
    }

    private BenchReport load(Gateway g, double rate, Map<String, String> headers, Duration recorded, Duration warm,
                             Duration requestTimeout, List<byte[]> bodies) throws InterruptedException {
        // Enough connections for every request of a timeout's worth to be in flight: the generator never backs up.
        int connections = (int) Math.min(8000, Math.ceil(rate * requestTimeout.toNanos() / 1e9) + 16);
        BenchOptions options = BenchOptions.builder(g.uri(), roundRobin(bodies))
                .openLoop(rate, connections).duration(recorded).warmup(warm).requestTimeout(requestTimeout)
                .headers(headers).progress(false).build();
        return LoadGenerator.run(options);
    }

    /**
     * Samples queue depths, the simulator's queue and the gateway's RSS until {@code running} turns false, and
     * the gateway's successful answers per route at the first samples after the window's start and end.
     */
    private static Maxima sample(HttpClient http, Gateway g, URI sim, AtomicBoolean running, long windowStart,
                                 long windowEnd) throws Exception {
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
            String page = BenchScrapes.get(http, g.admin().resolve("/metrics"));
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
            rss = Math.max(rss, BenchScrapes.rssKib(g.process().pid()));
            Thread.sleep(SAMPLE_EVERY.toMillis());
        }
        if (okAtStart != null && okAtEnd == null) {
            // The load ended before a sample fell after the window's end: count up to now (a few samples' more).
            okAtEnd = successes(BenchScrapes.get(http, g.admin().resolve("/metrics")));
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
    private static Map<String, Double> rejections(HttpClient http, Gateway g) throws Exception {
        Map<String, Double> out = new LinkedHashMap<>();
        if (!g.admission()) {
            return out;
        }
        String page = BenchScrapes.get(http, g.admin().resolve("/metrics"));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                "(?m)^cachegate_admission_rejections_total\\{([^}]*)}\\s+(\\S+)").matcher(page);
        while (m.find()) {
            String cls = label(m.group(1), "class");
            String reason = label(m.group(1), "reason");
            out.merge(cls + "/" + reason, Double.parseDouble(m.group(2)), Double::sum);
        }
        return out;
    }

    static String label(String labels, String name) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?:^|,)" + name + "=\"([^\"]*)\"").matcher(labels);
        return m.find() ? m.group(1) : "";
    }

    /** Waits (up to 60 s) until the simulator and the gateway's queues are empty: a phase starts from rest. */
    private static void awaitIdle(HttpClient http, URI sim, Gateway g) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            boolean idle = BenchScrapes.simStats(http, sim).idle();
            if (idle && g.admission()) {
                String page = BenchScrapes.get(http, g.admin().resolve("/metrics"));
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
            String body = "{\"model\":\"" + model + "\",\"temperature\":0.7,\"max_tokens\":" + maxTokens
                    + ",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"" + tag + " request " + i
                    + ": summarise the plot of a novel you like in a few sentences.\"}]}";
            out.add(body.getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    private static RequestSource roundRobin(List<byte[]> bodies) {
        BenchRequest[] all = bodies.stream().map(b -> BenchRequest.post(PATH, b, true)).toArray(BenchRequest[]::new);
        AtomicLong next = new AtomicLong();
        return () -> all[(int) Long.remainderUnsigned(next.getAndIncrement(), all.length)];
    }

    private String policy(int port, int admin, int simPort, boolean admission, double capacity) {
        // The drain rate the controller assumes before it has measured one: C requests/s at their token cost
        // (the gateway's estimate, prompt plus max_tokens, about 20 + max_tokens here).
        long drain = Math.max(1, Math.round(capacity * (20 + maxTokens)));
        return """
                server: { host: 127.0.0.1, port: %d, admin_port: %d, io_threads: %d, shutdown_grace: 1s }
                backends:
                  - name: sim
                    urls: ["http://127.0.0.1:%d"]
                    model_version: "bench@1"
                    max_concurrency: %d
                    max_connections_per_url: 1024
                    balance: least_loaded
                classes:
                  interactive: { priority: 0, max_queue_time: %s }
                  batch: { priority: 2, max_queue_time: %s, pausable: true, share: 0.1, max_inflight_share: %s }
                admission:
                  enabled: %b
                  initial_drain_rate: %d
                routes:
                  - match: { model: "%s" }
                    backend: sim
                    class: interactive
                    cache: { exact: false }
                  - match: { model: "*" }
                    backend: sim
                    class: interactive
                    cache: { exact: false }
                """.formatted(port, admin, gatewayThreads, simPort, maxConcurrency, interactiveMaxQueue, batchMaxQueue,
                batchMaxInflightShare, admission, drain, BATCH_MODEL);
    }

    private static void info(String format, Object... args) {
        System.err.printf(Locale.ROOT, "overload: " + format + "%n", args);
    }

    // ---------------------------------------------------------------------------------------------
    // The report

    private final class Summary {
        private final List<Map<String, Phase>> rounds;
        private final double capacity;
        private final double interactiveRate;
        private final double batchRate;
        private final double seconds;

        Summary(List<Map<String, Phase>> rounds, double capacity, double interactiveRate, double batchRate,
                double seconds) {
            this.rounds = rounds;
            this.capacity = capacity;
            this.interactiveRate = interactiveRate;
            this.batchRate = batchRate;
            this.seconds = seconds;
        }

        double median(String phase, ToDoubleFunction<Phase> f) {
            return Medians.of(rounds.stream().map(r -> r.get(phase)).mapToDouble(f));
        }


        double offered(BenchReport report, StatusProbe.Result probe) {
            if (report == null) {
                return 0;
            }
            long probeAll = probe == null ? 0 : probe.between(100, 599).length + probe.failures().values().stream()
                    .mapToLong(Long::longValue).sum();
            return (report.requests() + probeAll) / seconds;
        }

        StatusProbe.Percentiles rejections(Phase p, int status) {
            List<long[]> parts = new ArrayList<>();
            for (StatusProbe.Result r : new StatusProbe.Result[] {p.interactiveProbe(), p.batchProbe()}) {
                if (r != null) {
                    parts.add(r.between(status, status));
                }
            }
            return StatusProbe.Percentiles.of(parts.stream().flatMapToLong(java.util.Arrays::stream).toArray());
        }

        long rejected(BenchReport report, StatusProbe.Result probe, int status) {
            return (report == null ? 0 : report.statusCounts().getOrDefault(status, 0L))
                    + (probe == null ? 0 : probe.count(status));
        }

        double bound() {
            return queueBound(interactiveRate, Durations.parse(interactiveMaxQueue), batchRate,
                    Durations.parse(batchMaxQueue));
        }

        long unexpectedErrors() {
            long n = 0;
            for (Map<String, Phase> r : rounds) {
                for (Map.Entry<String, Phase> e : r.entrySet()) {
                    boolean admission = !"admission-off".equals(e.getKey());
                    Phase p = e.getValue();
                    n += unexpected(p.interactive(), admission);
                    n += p.batch() == null ? 0 : unexpected(p.batch(), admission);
                    n += p.interactiveProbe() == null ? 0 : unexpected(p.interactiveProbe(), admission);
                    n += p.batchProbe() == null ? 0 : unexpected(p.batchProbe(), admission);
                }
            }
            return n;
        }

        double p99Ratio(String phase) {
            return median(phase, p -> p.interactive().firstByte().p99Ms())
                    / median("unloaded", p -> p.interactive().firstByte().p99Ms());
        }

        double maxRejectionMs() {
            return rounds.stream().flatMap(r -> r.values().stream()).mapToDouble(p -> rejections(p, 429).maxMs())
                    .filter(v -> !Double.isNaN(v)).max().orElse(Double.NaN);
        }

        void print() {
            System.out.printf(Locale.ROOT, "%nOverload: simulator capacity C = %.1f requests/s (%d sequences at once, "
                            + "ttft %d ms + %d x %.0f ms per request); offered interactive %.1f/s (%.2f x C) + batch "
                            + "%.1f/s (%.2f x C) = %.2f x C; streamed, %s per phase, %d rounds, %d cores%n",
                    capacity, maxConcurrency, ttftMs, maxTokens - 1, tpotMs, interactiveRate, interactiveLoad, batchRate,
                    batchLoad, interactiveLoad + batchLoad, duration, rounds.size(),
                    Runtime.getRuntime().availableProcessors());
            System.out.printf(Locale.ROOT, "Unloaded baseline: interactive alone at the same %.1f/s through the "
                    + "admission gateway. Queues: interactive %s, batch %s (share 0.1, pausable, at most %.0f%% of the "
                    + "slots).%n",
                    interactiveRate, interactiveMaxQueue, batchMaxQueue, batchMaxInflightShare * 100);
            System.out.printf(Locale.ROOT, "%n%-22s %8s %8s %8s %9s %9s %7s %7s %8s %8s %8s %6s %6s %6s %7s%n",
                    "phase", "TTFT p50", "TTFT p99", "p99 x", "int ok/s", "batch ok/s", "429s", "503s", "rej p50",
                    "rej p99", "rej max", "q int", "q bat", "q sim", "RSS MiB");
            for (int r = 0; r < rounds.size(); r++) {
                for (Map.Entry<String, Phase> e : rounds.get(r).entrySet()) {
                    Phase p = e.getValue();
                    StatusProbe.Percentiles rej = rejections(p, 429);
                    double base = rounds.get(r).get("unloaded").interactive().firstByte().p99Ms();
                    System.out.printf(Locale.ROOT, "%-22s %8.1f %8.1f %8.2f %9.1f %9.1f %7d %7d %8.2f %8.2f %8.2f "
                                    + "%6.0f %6.0f %6d %7d%n",
                            "r" + (r + 1) + " " + e.getKey(), p.interactive().firstByte().p50Ms(),
                            p.interactive().firstByte().p99Ms(), p.interactive().firstByte().p99Ms() / base,
                            p.maxima().interactiveOkPerSecond(), p.maxima().batchOkPerSecond(),
                            rejected(p.interactive(), p.interactiveProbe(), 429) + rejected(p.batch(), p.batchProbe(), 429),
                            rejected(p.interactive(), p.interactiveProbe(), 503) + rejected(p.batch(), p.batchProbe(), 503),
                            rej.p50Ms(), rej.p99Ms(), rej.maxMs(), p.maxima().interactiveQueue(),
                            p.maxima().batchQueue(), p.maxima().simQueued(), p.maxima().gatewayRssKib() / 1024);
                }
            }
            System.out.println("(TTFT = first byte of streamed answers, ms, successful interactive requests, from the "
                    + "intended send time; p99 x = / the round's unloaded p99; ok/s = the gateway's 200 answers per "
                    + "second over the recorded window; rej = latency of the 429 answers to the probe, ms; q = largest queue "
                    + "sampled every 250 ms: the gateway's per class, the simulator's own; RSS = the gateway's "
                    + "largest VmRSS.)");
            for (int r = 0; r < rounds.size(); r++) {
                for (Map.Entry<String, Phase> e : rounds.get(r).entrySet()) {
                    Phase p = e.getValue();
                    System.out.printf(Locale.ROOT, "r%d %-14s interactive %s errors %s; batch %s errors %s%s%s%n",
                            r + 1, e.getKey(), p.interactive().statusCounts(), p.interactive().errorsByKind(),
                            p.batch() == null ? "-" : p.batch().statusCounts(),
                            p.batch() == null ? "-" : p.batch().errorsByKind(),
                            p.rejections().isEmpty() ? "" : "; gateway rejections " + p.rejections(),
                            p.maxima().overloaded() ? "; overload mode entered" : "");
                }
            }
            double ratio = p99Ratio("admission-on");
            double maxRej = maxRejectionMs();
            double bound = bound();
            double qOn = median("admission-on", p -> p.maxima().interactiveQueue() + p.maxima().batchQueue()
                    + p.maxima().simQueued());
            double qOff = median("admission-off", p -> p.maxima().interactiveQueue() + p.maxima().batchQueue()
                    + p.maxima().simQueued());
            System.out.printf(Locale.ROOT, "%nMedians of %d rounds%n", rounds.size());
            System.out.printf(Locale.ROOT, "%-14s %9s %9s %8s %10s %10s %9s %9s %9s%n", "phase", "TTFT p50", "TTFT p99",
                    "p99 x", "int ok/s", "batch ok/s", "rej p99", "max queue", "RSS MiB");
            for (String phase : List.of("unloaded", "admission-on", "admission-off")) {
                System.out.printf(Locale.ROOT, "%-14s %9.1f %9.1f %8.2f %10.1f %10.1f %9.2f %9.0f %9.0f%n", phase,
                        median(phase, p -> p.interactive().firstByte().p50Ms()),
                        median(phase, p -> p.interactive().firstByte().p99Ms()), p99Ratio(phase),
                        median(phase, p -> p.maxima().interactiveOkPerSecond()),
                        median(phase, p -> p.maxima().batchOkPerSecond()),
                        median(phase, p -> rejections(p, 429).p99Ms()),
                        median(phase, p -> p.maxima().interactiveQueue() + p.maxima().batchQueue()
                                + p.maxima().simQueued()),
                        median(phase, p -> p.maxima().gatewayRssKib() / 1024.0));
            }
            System.out.printf(Locale.ROOT, "%nTargets (admission on):%n");
            System.out.printf(Locale.ROOT, "  interactive p99 TTFT <= 2 x unloaded: %.2f x  %s (admission off: %.2f x)%n",
                    ratio, ratio <= 2 ? "met" : "NOT met", p99Ratio("admission-off"));
            System.out.printf(Locale.ROOT, "  every rejection within 5 ms: slowest 429 %.2f ms  %s%n", maxRej,
                    Double.isNaN(maxRej) ? "(no 429 seen)" : maxRej <= 5 ? "met" : "NOT met");
            System.out.printf(Locale.ROOT, "  queues bounded: largest queue %.0f requests (gateway + simulator) "
                            + "<= %.0f = rate x max queue time per class  %s (admission off: %.0f)%n",
                    qOn, bound, qOn <= bound ? "met" : "NOT met", qOff);
        }

        String toJson() throws Exception {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("cores", Runtime.getRuntime().availableProcessors());
            out.put("capacityPerSecond", capacity);
            out.put("interactiveRate", interactiveRate);
            out.put("batchRate", batchRate);
            out.put("durationSeconds", seconds);
            List<Object> rs = new ArrayList<>();
            for (Map<String, Phase> r : rounds) {
                Map<String, Object> round = new LinkedHashMap<>();
                r.forEach((name, p) -> {
                    Map<String, Object> phase = new LinkedHashMap<>();
                    phase.put("interactive", p.interactive());
                    phase.put("batch", p.batch());
                    phase.put("interactiveGoodput", p.maxima().interactiveOkPerSecond());
                    phase.put("batchGoodput", p.maxima().batchOkPerSecond());
                    phase.put("offeredInteractive", offered(p.interactive(), p.interactiveProbe()));
                    phase.put("offeredBatch", offered(p.batch(), p.batchProbe()));
                    phase.put("rejection429", rejections(p, 429));
                    phase.put("rejection503", rejections(p, 503));
                    phase.put("maxima", p.maxima());
                    phase.put("gatewayRejections", p.rejections());
                    round.put(name, phase);
                });
                rs.add(round);
            }
            out.put("rounds", rs);
            Map<String, Object> medians = new LinkedHashMap<>();
            for (String phase : List.of("unloaded", "admission-on", "admission-off")) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("ttftP50Ms", median(phase, p -> p.interactive().firstByte().p50Ms()));
                m.put("ttftP99Ms", median(phase, p -> p.interactive().firstByte().p99Ms()));
                m.put("ttftP99VsUnloaded", p99Ratio(phase));
                m.put("interactiveGoodput", median(phase, p -> p.maxima().interactiveOkPerSecond()));
                m.put("batchGoodput", median(phase, p -> p.maxima().batchOkPerSecond()));
                m.put("rejectionP99Ms", median(phase, p -> rejections(p, 429).p99Ms()));
                m.put("maxQueue", median(phase, p -> p.maxima().interactiveQueue() + p.maxima().batchQueue()
                        + p.maxima().simQueued()));
                m.put("gatewayRssMiB", median(phase, p -> p.maxima().gatewayRssKib() / 1024.0));
                medians.put(phase, m);
            }
            out.put("medians", medians);
            out.put("queueBound", bound());
            out.put("maxRejectionMs", maxRejectionMs());
            out.put("unexpectedErrors", unexpectedErrors());
            return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                    .configure(SerializationFeature.FAIL_ON_EMPTY_BEANS, false).writeValueAsString(out);
        }
    }
}
