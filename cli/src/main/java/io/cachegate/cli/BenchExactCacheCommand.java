package io.cachegate.cli;

import io.cachegate.bench.BenchOptions;
import io.cachegate.bench.BenchReport;
import io.cachegate.bench.BenchRequest;
import io.cachegate.bench.LatencySummary;
import io.cachegate.bench.LoadGenerator;
import io.cachegate.bench.RequestSource;
import io.cachegate.config.Durations;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cachegate bench exact-cache}: the exact cache's hit path against nginx's {@code proxy_cache}.
 * Starts a zero-latency simulator, a Redis (the one on 127.0.0.1:6379 if it answers, else its own),
 * one gateway per store ({@code memory}, {@code redis}, optionally {@code tiered}) and an nginx keyed
 * on the request body, all as child processes; caches a fixed request set in each, checks that a
 * second pass is all hits, then measures closed-loop hit throughput and open-loop hit latency in
 * alternating rounds, and reports medians and ratios against nginx.
 */
@Command(name = "exact-cache", mixinStandardHelpOptions = true,
        description = {
            "Exact-cache hit throughput and latency with each store, against nginx proxy_cache keyed on the request "
                    + "body as the reference, in one run.",
            "Starts a zero-latency simulator, Redis (127.0.0.1:6379 if it answers PING, else its own redis-server), "
                    + "one gateway per store and nginx (installed with apt-get when missing) as child processes; caches "
                    + "--requests distinct deterministic chat requests in each and checks a second pass is all hits; then "
                    + "closed-loop throughput rounds, then open-loop latency rounds at --rate, targets alternating. "
                    + "Exit status 1 on request errors, misses during the measurement, or a failed hit check."
        })
final class BenchExactCacheCommand implements Callable<Integer> {

    private static final Duration PHASE_RAMP = Duration.ofSeconds(2);
    private static final String PATH = "/v1/chat/completions";
    private static final String MODEL = "llama-3.1-8b";
    private static final Pattern SIM_REQUESTS = Pattern.compile("\"requests\"\\s*:\\s*(\\d+)");
    private static final Pattern LOOKUPS = Pattern.compile(
            "(?m)^cachegate_cache_lookups_total\\{[^}]*outcome=\"([a-z_]+)\"[^}]*}\\s+(\\S+)$");

    @Option(names = "--stores", split = ",", defaultValue = "memory,redis",
            description = "Gateway stores to measure, any of memory, redis, tiered (default ${DEFAULT-VALUE}).")
    List<String> stores;

    @Option(names = "--no-nginx", description = "Leave out the nginx reference.")
    boolean noNginx;

    @Option(names = "--redis", defaultValue = "auto", paramLabel = "auto|start|URI",
            description = "auto: 127.0.0.1:6379 if it answers PING, else start a redis-server; start: always start one; "
                    + "or a redis:// URI (default ${DEFAULT-VALUE}).")
    String redis;

    @Option(names = "--nginx-binary", defaultValue = "nginx",
            description = "nginx executable; when it is missing, apt-get installs Debian's nginx (default ${DEFAULT-VALUE}).")
    String nginxBinary;

    @Option(names = "--requests", defaultValue = "100", description = "Distinct cached requests (default ${DEFAULT-VALUE}).")
    int requests;

    @Option(names = "--connections", defaultValue = "32",
            description = "Connections of the closed-loop throughput phases (default ${DEFAULT-VALUE}).")
    int connections;

    @Option(names = "--rate", defaultValue = "0",
            description = "Open-loop rate, requests/s; 0 = half the lowest median hit throughput of the closed loop "
                    + "(default ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--duration", defaultValue = "10s", description = "Recorded time of each phase (default ${DEFAULT-VALUE}).")
    String duration;

    @Option(names = "--warmup", defaultValue = "10s",
            description = "Unrecorded closed-loop hits on each target before measuring, so the JIT has compiled the "
                    + "hit path (default ${DEFAULT-VALUE}).")
    String warmup;

    @Option(names = "--rounds", defaultValue = "3",
            description = "Rounds of each phase; each round visits every target, in a rotating order; medians are "
                    + "reported (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--gateway-threads", defaultValue = "0",
            description = "Gateway event loop threads; 0 = the gateway's default, one per core (default ${DEFAULT-VALUE}).")
    int gatewayThreads;

    @Option(names = "--child-jvm-opts", defaultValue = "-Xmx1g -XX:+UseParallelGC",
            description = "JVM options of the simulator and gateway processes (default ${DEFAULT-VALUE}).")
    String childJvmOpts;

    @Option(names = "--gateway-jvm-opts", defaultValue = "",
            description = "Extra JVM options of the gateway processes only, e.g. to profile: "
                    + "'-XX:StartFlightRecording=filename=/tmp/gw-{store}.jfr,settings=profile'; {store} is replaced "
                    + "by the store name.")
    String gatewayJvmOpts;

    @Option(names = "--json", description = "Print the result as JSON.")
    boolean json;

    /** One thing measured: a gateway with one store, or nginx. */
    private record Target(String name, URI uri, String hitHeader, URI admin) {
    }

    @Override
    public Integer call() throws Exception {
        Duration recorded = Durations.parse(duration);
        Duration warm = Durations.parse(warmup);
        for (String store : stores) {
            if (!List.of("memory", "redis", "tiered").contains(store)) {
                throw new IllegalArgumentException("--stores: unknown store \"" + store + "\" (memory, redis, tiered)");
            }
        }
        if (requests < 1 || rounds < 1 || connections < 1) {
            throw new IllegalArgumentException("--requests, --rounds and --connections must be >= 1");
        }
        try (BenchChildren res = new BenchChildren("exact", childJvmOpts)) {
            return run(res, recorded, warm);
        }
    }

    private int run(BenchChildren res, Duration recorded, Duration warm) throws Exception {
        // nginx workers run as an unprivileged user when we are root: they must reach their cache dirs inside.
        Files.setPosixFilePermissions(res.dir(), PosixFilePermissions.fromString("rwxr-xr-x"));
        Path dir = res.dir();
        List<byte[]> bodies = requestBodies(requests);

        int simPort = LocalProcesses.freePort();
        res.start("sim", "simulate-backend", "--port", Integer.toString(simPort));
        LocalProcesses.awaitPort(simPort);
        URI sim = URI.create("http://127.0.0.1:" + simPort);
        info("simulator on %s", sim);

        String redisUri = null;
        if (stores.contains("redis") || stores.contains("tiered")) {
            redisUri = redis(res);
        }

        List<Target> targets = new ArrayList<>();
        for (String store : stores) {
            int port = LocalProcesses.freePort();
            int admin = LocalProcesses.freePort();
            Path policy = dir.resolve("policy-" + store + ".yaml");
            Files.writeString(policy, policy(port, admin, simPort, store, redisUri));
            List<String> extra = gatewayJvmOpts.isBlank() ? List.of()
                    : List.of(gatewayJvmOpts.replace("{store}", store).trim().split("\\s+"));
            res.start("gateway-" + store, extra, "serve", "--config", policy.toString());
            targets.add(new Target(store, URI.create("http://127.0.0.1:" + port), "x-cache",
                    URI.create("http://127.0.0.1:" + admin)));
        }
        String nginxNote = null;
        if (!noNginx) {
            Optional<String> binary = NginxReference.find(nginxBinary);
            if (binary.isEmpty()) {
                binary = NginxReference.install(nginxBinary);
            }
            if (binary.isEmpty()) {
                nginxNote = "skipped: nginx is not installed and apt-get could not install it (see above)";
            } else {
                int port = LocalProcesses.freePort();
                Path nginxDir = dir.resolve("nginx");
                Files.createDirectories(nginxDir);
                Files.setPosixFilePermissions(nginxDir, PosixFilePermissions.fromString("rwxr-xr-x"));
                Path conf = nginxDir.resolve("nginx.conf");
                Files.writeString(conf, NginxReference.config(nginxDir, port, simPort));
                String version = NginxReference.version(binary.get());
                Process check = new ProcessBuilder(binary.get(), "-t", "-q", "-p", nginxDir.toString(),
                        "-e", nginxDir.resolve("error.log").toString(), "-c", conf.toString())
                        .redirectErrorStream(true).start();
                String checkOut = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (check.waitFor() != 0) {
                    throw new IllegalStateException("nginx -t rejected the generated config:\n" + checkOut);
                }
                res.adopt(new ProcessBuilder(binary.get(), "-p", nginxDir.toString(),
                        "-e", nginxDir.resolve("error.log").toString(), "-c", conf.toString())
                        .redirectErrorStream(true).redirectOutput(logFile("nginx")).start());
                targets.add(new Target("nginx", URI.create("http://127.0.0.1:" + port), "x-cache-status", null));
                nginxNote = "nginx " + version + " proxy_cache, key \"$request_uri|$request_body\"";
            }
        }
        for (Target t : targets) {
            LocalProcesses.awaitPort(t.uri().getPort());
            info("%s on %s", t.name(), t.uri());
        }

        // Cache every request in every target, then check that a second pass is all hits.
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        for (Target t : targets) {
            Map<String, Integer> first = pass(http, t, bodies);
            Map<String, Integer> second = Map.of();
            long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
            while (System.nanoTime() < deadline) {
                Thread.sleep(200); // write-back is asynchronous
                second = pass(http, t, bodies);
                if (second.getOrDefault("HIT", 0) == bodies.size()) {
                    break;
                }
            }
            info("%s: cache fill pass %s, check pass %s", t.name(), first, second);
            if (second.getOrDefault("HIT", 0) != bodies.size()) {
                System.err.printf("FAILED: %s does not answer every cached request from its cache (%s); "
                        + "logs in %s%n", t.name(), second, logFile("*"));
                return 1;
            }
        }

        RequestSource source = roundRobin(bodies);
        for (Target t : targets) {
            run(t, source, BenchOptions.Mode.CLOSED, 0, warm, Duration.ZERO, "warm-up " + t.name() + " (not recorded)");
        }
        Map<String, List<BenchReport>> closed = new LinkedHashMap<>();
        Map<String, List<BenchReport>> open = new LinkedHashMap<>();
        Map<String, Long> backendCalls = new LinkedHashMap<>();
        for (Target t : targets) {
            closed.put(t.name(), new ArrayList<>());
            open.put(t.name(), new ArrayList<>());
            backendCalls.put(t.name(), 0L);
        }
        for (int r = 0; r < rounds; r++) {
            for (Target t : rotated(targets, r)) {
                long before = simRequests(http, sim);
                closed.get(t.name()).add(run(t, source, BenchOptions.Mode.CLOSED, 0, recorded, PHASE_RAMP,
                        "round " + (r + 1) + ": closed loop, " + t.name()));
                backendCalls.merge(t.name(), simRequests(http, sim) - before, Long::sum);
            }
        }
        boolean autoRate = rate <= 0;
        double openRate = autoRate
                ? Math.floor(targets.stream().mapToDouble(t -> median(closed.get(t.name()), BenchReport::throughput))
                        .min().orElseThrow() / 2)
                : rate;
        info("open-loop rate %.0f/s%s", openRate, autoRate ? " (half the lowest median closed-loop throughput)" : "");
        for (int r = 0; r < rounds; r++) {
            for (Target t : rotated(targets, r)) {
                long before = simRequests(http, sim);
                open.get(t.name()).add(run(t, source, BenchOptions.Mode.OPEN, openRate, recorded, PHASE_RAMP,
                        "round " + (r + 1) + ": open loop at " + Math.round(openRate) + "/s, " + t.name()));
                backendCalls.merge(t.name(), simRequests(http, sim) - before, Long::sum);
            }
        }
        // A last check that the caches still hold everything (e.g. nothing evicted or purged meanwhile).
        Map<String, Map<String, Integer>> after = new LinkedHashMap<>();
        for (Target t : targets) {
            after.put(t.name(), pass(http, t, bodies));
        }
        Map<String, Map<String, Long>> lookups = new LinkedHashMap<>();
        for (Target t : targets) {
            if (t.admin() != null) {
                lookups.put(t.name(), lookups(http, t.admin()));
            }
        }
        long errors = Stream.concat(closed.values().stream(), open.values().stream()).flatMap(List::stream)
                .mapToLong(BenchReport::errors).sum();
        long misses = backendCalls.values().stream().mapToLong(Long::longValue).sum();
        boolean allHits = after.values().stream().allMatch(m -> m.getOrDefault("HIT", 0) == bodies.size());
        Result result = new Result(targets, closed, open, backendCalls, after, lookups, openRate, autoRate,
                nginxNote, bodies, redisUri);
        if (json) {
            System.out.println(result.toJson());
        } else {
            result.print();
        }
        return errors == 0 && misses == 0 && allHits ? 0 : 1;
    }

    // ---------------------------------------------------------------------------------------------
    // The request set, the policy and the nginx config

    /** Distinct deterministic chat requests (temperature 0, no max_tokens: the simulator ends them with "stop"). */
    static List<byte[]> requestBodies(int count) {
        String[] topics = {"the water cycle", "TCP congestion control", "photosynthesis", "the French Revolution",
            "binary search", "plate tectonics", "compound interest", "the immune system", "public-key cryptography",
            "how vaccines work"};
        List<byte[]> bodies = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String body = "{\"model\":\"" + MODEL + "\",\"temperature\":0,\"messages\":["
                    + "{\"role\":\"system\",\"content\":\"You are a concise assistant.\"},"
                    + "{\"role\":\"user\",\"content\":\"Question " + i + ": explain " + topics[i % topics.length]
                    + " in three sentences.\"}]}";
            bodies.add(body.getBytes(StandardCharsets.UTF_8));
        }
        return bodies;
    }

    private static RequestSource roundRobin(List<byte[]> bodies) {
        BenchRequest[] all = bodies.stream().map(b -> BenchRequest.post(PATH, b, false)).toArray(BenchRequest[]::new);
        AtomicLong next = new AtomicLong();
        return () -> all[(int) Long.remainderUnsigned(next.getAndIncrement(), all.length)];
    }

    private String policy(int port, int adminPort, int simPort, String store, String redisUri) {
        return """
                server: { host: 127.0.0.1, port: %d, admin_port: %d, io_threads: %d, shutdown_grace: 1s }
                backends:
                  - name: sim
                    urls: ["http://127.0.0.1:%d"]
                    model_version: "bench@1"
                    max_connections_per_url: 256
                cache:
                  exact:
                    store: %s
                %sroutes:
                  - match: { model: "*" }
                    backend: sim
                """.formatted(port, adminPort, gatewayThreads, simPort, store,
                "memory".equals(store) ? "" : "    redis_uri: \"" + redisUri + "\"\n");
    }

    /**
     * nginx as a caching reverse proxy keyed on the request body. {@code $request_body} is only set
     * when the whole body sits in one memory buffer, hence the large {@code client_body_buffer_size}.
     * Entries live 1h (like the gateway's default TTL), so a long run does not expire them mid-measurement.
     */
    // ---------------------------------------------------------------------------------------------
    // Redis and nginx

    private String redis(BenchChildren res) throws IOException, InterruptedException {
        if (!"auto".equals(redis) && !"start".equals(redis)) {
            info("Redis: %s (given)", redis);
            return redis;
        }
        if ("auto".equals(redis) && ping(6379)) {
            info("Redis: 127.0.0.1:6379 answers PING, using it");
            return "redis://127.0.0.1:6379";
        }
        int port = LocalProcesses.freePort();
        res.adopt(new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no")
                .redirectErrorStream(true).redirectOutput(logFile("redis")).start());
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!ping(port)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("redis-server did not answer PING on port " + port + "; see "
                        + logFile("redis"));
            }
            Thread.sleep(100);
        }
        info("Redis: started redis-server on 127.0.0.1:%d", port);
        return "redis://127.0.0.1:" + port;
    }

    private static boolean ping(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            s.setSoTimeout(1000);
            s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] answer = new byte[7];
            int n = s.getInputStream().readNBytes(answer, 0, 7);
            return new String(answer, 0, n, StandardCharsets.US_ASCII).startsWith("+PONG");
        } catch (IOException e) {
            return false;
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Checks and measurement

    /** Sends every request once; counts the answers by cache status (HIT, MISS, ..., or "status <code>"). */
    private static Map<String, Integer> pass(HttpClient http, Target t, List<byte[]> bodies)
            throws IOException, InterruptedException {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (byte[] body : bodies) {
            HttpRequest request = HttpRequest.newBuilder(t.uri().resolve(PATH)).timeout(Duration.ofSeconds(10))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
            HttpResponse<Void> response = http.send(request, HttpResponse.BodyHandlers.discarding());
            String outcome = response.statusCode() != 200 ? "status " + response.statusCode()
                    : response.headers().firstValue(t.hitHeader()).orElse("none");
            counts.merge(outcome, 1, Integer::sum);
        }
        return counts;
    }

    private static long simRequests(HttpClient http, URI sim) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(sim.resolve("/sim/stats")).timeout(Duration.ofSeconds(5))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        Matcher m = SIM_REQUESTS.matcher(r.body());
        if (r.statusCode() != 200 || !m.find()) {
            throw new IllegalStateException("unexpected /sim/stats answer: " + r.statusCode() + " " + r.body());
        }
        return Long.parseLong(m.group(1));
    }

    /** The gateway's {@code cachegate_cache_lookups_total} counters by outcome, from its admin {@code /metrics}. */
    private static Map<String, Long> lookups(HttpClient http, URI admin) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(admin.resolve("/metrics")).timeout(Duration.ofSeconds(5))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        Map<String, Long> out = new LinkedHashMap<>();
        Matcher m = LOOKUPS.matcher(r.body());
        while (m.find()) {
            out.merge(m.group(1), (long) Double.parseDouble(m.group(2)), Long::sum);
        }
        return out;
    }

    private BenchReport run(Target t, RequestSource source, BenchOptions.Mode mode, double perSecond, Duration recorded,
                            Duration ramp, String label) throws InterruptedException {
        System.err.println("== " + label);
        BenchOptions.Builder options = BenchOptions.builder(t.uri(), source)
                .duration(recorded).warmup(ramp).progress(true).requestTimeout(Duration.ofSeconds(10));
        if (mode == BenchOptions.Mode.OPEN) {
            options.openLoop(perSecond, 256);
        } else {
            options.closedLoop(connections);
        }
        return LoadGenerator.run(options.build());
    }

    private static List<Target> rotated(List<Target> targets, int by) {
        List<Target> out = new ArrayList<>(targets.size());
        for (int i = 0; i < targets.size(); i++) {
            out.add(targets.get((i + by) % targets.size()));
        }
        return out;
    }

    // ---------------------------------------------------------------------------------------------
    // The report

    private final class Result {
        final List<Target> targets;
        final Map<String, List<BenchReport>> closed;
        final Map<String, List<BenchReport>> open;
        final Map<String, Long> backendCalls;
        final Map<String, Map<String, Integer>> after;
        final Map<String, Map<String, Long>> lookups;
        final double openRate;
        final boolean autoRate;
        final String nginxNote;
        final List<byte[]> bodies;
        final String redisUri;

        Result(List<Target> targets, Map<String, List<BenchReport>> closed, Map<String, List<BenchReport>> open,
               Map<String, Long> backendCalls, Map<String, Map<String, Integer>> after,
               Map<String, Map<String, Long>> lookups, double openRate,
               boolean autoRate, String nginxNote, List<byte[]> bodies, String redisUri) {
            this.targets = targets;
            this.closed = closed;
            this.open = open;
            this.backendCalls = backendCalls;
            this.after = after;
            this.lookups = lookups;
            this.openRate = openRate;
            this.autoRate = autoRate;
            this.nginxNote = nginxNote;
            this.bodies = bodies;
            this.redisUri = redisUri;
        }

        boolean hasNginx() {
            return closed.containsKey("nginx");
        }

        double thr(String name) {
            return median(closed.get(name), BenchReport::throughput);
        }

        double p(String name, java.util.function.ToDoubleFunction<LatencySummary> f) {
            return median(open.get(name), r -> f.applyAsDouble(r.total()));
        }

        void print() {
            int avgBody = (int) bodies.stream().mapToInt(b -> b.length).average().orElse(0);
            System.out.printf(Locale.ROOT, "%nExact-cache hits: %d distinct chat requests (%d body bytes on average), "
                    + "every one cached in every target; %d cores; %d rounds of %s per phase%n",
                    bodies.size(), avgBody, Runtime.getRuntime().availableProcessors(), rounds, duration);
            System.out.printf(Locale.ROOT, "Gateways: %s%s; reference: %s%n", String.join(", ", stores),
                    redisUri == null ? "" : " (Redis " + redisUri + ")", nginxNote == null ? "none (--no-nginx)" : nginxNote);

            System.out.printf(Locale.ROOT, "%nThroughput of hits, closed loop with %d connections, requests/s%n", connections);
            StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "%-8s", "target"));
            for (int r = 1; r <= rounds; r++) {
                head.append(String.format(Locale.ROOT, " %9s", "round " + r));
            }
            head.append(String.format(Locale.ROOT, " %9s %7s", "median", "errors"));
            System.out.println(head);
            for (Target t : targets) {
                StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-8s", t.name()));
                for (BenchReport b : closed.get(t.name())) {
                    row.append(String.format(Locale.ROOT, " %9.0f", b.throughput()));
                }
                row.append(String.format(Locale.ROOT, " %9.0f %7d", thr(t.name()),
                        closed.get(t.name()).stream().mapToLong(BenchReport::errors).sum()));
                System.out.println(row);
            }

            System.out.printf(Locale.ROOT, "%nLatency of hits, open loop at %.0f requests/s%s (from intended send time), ms%n",
                    openRate, autoRate ? " = half the lowest median throughput" : "");
            System.out.printf(Locale.ROOT, "%-8s %5s %8s %8s %8s %8s %8s %7s%n",
                    "target", "round", "p50", "p90", "p99", "p99.9", "max", "errors");
            for (Target t : targets) {
                List<BenchReport> reports = open.get(t.name());
                for (int r = 0; r < reports.size(); r++) {
                    LatencySummary s = reports.get(r).total();
                    System.out.printf(Locale.ROOT, "%-8s %5d %8.3f %8.3f %8.3f %8.3f %8.3f %7d%n", t.name(), r + 1,
                            s.p50Ms(), s.p90Ms(), s.p99Ms(), s.p999Ms(), s.maxMs(), reports.get(r).errors());
                }
            }

            System.out.printf(Locale.ROOT, "%nMedians of %d rounds%s%n", rounds,
                    hasNginx() ? "; ratios are target / nginx (throughput: higher is better, p99: lower is better)" : "");
            System.out.printf(Locale.ROOT, "%-8s %9s %8s %8s %8s %9s %9s %11s %9s%n", "target", "thr/s", "p50 ms",
                    "p99 ms", "p99.9 ms", "thr ratio", "p99 ratio", "p99<=1ms", "thr>=nginx");
            for (Target t : targets) {
                String n = t.name();
                String thrRatio = hasNginx() ? String.format(Locale.ROOT, "%.2f", thr(n) / thr("nginx")) : "-";
                String p99Ratio = hasNginx() ? String.format(Locale.ROOT, "%.2f",
                        p(n, LatencySummary::p99Ms) / p("nginx", LatencySummary::p99Ms)) : "-";
                String thrOk = !hasNginx() || "nginx".equals(n) ? "-" : thr(n) >= thr("nginx") ? "yes" : "NO";
                System.out.printf(Locale.ROOT, "%-8s %9.0f %8.3f %8.3f %8.3f %9s %9s %11s %9s%n", n, thr(n),
                        p(n, LatencySummary::p50Ms), p(n, LatencySummary::p99Ms), p(n, LatencySummary::p999Ms),
                        thrRatio, p99Ratio, p(n, LatencySummary::p99Ms) <= 1.0 ? "yes" : "NO", thrOk);
            }
            System.out.printf(Locale.ROOT, "%nBackend calls during the measured phases (misses): %s%n", backendCalls);
            System.out.printf(Locale.ROOT, "Hit check after the run: %s%n", after);
            System.out.printf(Locale.ROOT, "Gateway exact-cache lookups over the whole run (fill, checks, warm-up, "
                    + "measurement): %s%n", lookups);
            if (backendCalls.values().stream().anyMatch(c -> c > 0)) {
                System.out.println("NOT every measured request was a hit: the figures of a target with backend calls "
                        + "mix hits and misses (a lookup error is a Redis answer slower than cache.exact.timeout: "
                        + "the gateway fails open to the backend).");
            }
            if (nginxNote != null && !hasNginx()) {
                System.out.println("nginx " + nginxNote);
            }
        }

        String toJson() {
            StringBuilder out = new StringBuilder(4096);
            out.append(String.format(Locale.ROOT, "{\"cores\":%d,\"requests\":%d,\"connections\":%d,\"rate\":%.1f,"
                            + "\"rateAuto\":%b,\"rounds\":%d,\"redisUri\":%s,\"nginx\":%s,\"targets\":[",
                    Runtime.getRuntime().availableProcessors(), bodies.size(), connections, openRate, autoRate, rounds,
                    quote(redisUri), quote(nginxNote)));
            for (int i = 0; i < targets.size(); i++) {
                String n = targets.get(i).name();
                out.append(i == 0 ? "" : ",").append("{\"name\":").append(quote(n)).append(",\"closed\":[");
                appendReports(out, closed.get(n));
                out.append("],\"open\":[");
                appendReports(out, open.get(n));
                out.append(String.format(Locale.ROOT, "],\"medianThroughput\":%.1f,\"medianP50Ms\":%.3f,"
                                + "\"medianP90Ms\":%.3f,\"medianP99Ms\":%.3f,\"medianP999Ms\":%.3f,\"backendCalls\":%d",
                        thr(n), p(n, LatencySummary::p50Ms), p(n, LatencySummary::p90Ms), p(n, LatencySummary::p99Ms),
                        p(n, LatencySummary::p999Ms), backendCalls.get(n)));
                if (hasNginx()) {
                    out.append(String.format(Locale.ROOT, ",\"throughputVsNginx\":%.3f,\"p99VsNginx\":%.3f",
                            thr(n) / thr("nginx"), p(n, LatencySummary::p99Ms) / p("nginx", LatencySummary::p99Ms)));
                }
                out.append(",\"hitsAfter\":").append(after.get(n).getOrDefault("HIT", 0));
                if (lookups.containsKey(n)) {
                    out.append(",\"lookups\":{");
                    int j = 0;
                    for (Map.Entry<String, Long> e : lookups.get(n).entrySet()) {
                        out.append(j++ == 0 ? "" : ",").append(quote(e.getKey())).append(':').append(e.getValue());
                    }
                    out.append('}');
                }
                out.append('}');
            }
            return out.append("]}").toString();
        }

        private void appendReports(StringBuilder out, List<BenchReport> reports) {
            for (int i = 0; i < reports.size(); i++) {
                out.append(i == 0 ? "" : ",").append(reports.get(i).toJson());
            }
        }
    }

    private static String quote(String s) {
        if (s == null) {
            return "null";
        }
        return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    private static double median(List<BenchReport> reports, java.util.function.ToDoubleFunction<BenchReport> f) {
        return Medians.of(reports.stream().mapToDouble(f));
    }

    // ---------------------------------------------------------------------------------------------
    // Processes

    private static void info(String format, Object... args) {
        System.err.printf(Locale.ROOT, "exact-cache: " + format + "%n", args);
    }

    private static File logFile(String name) {
        return LocalProcesses.logFile("exact-" + name);
    }
}
