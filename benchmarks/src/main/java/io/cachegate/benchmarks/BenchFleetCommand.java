package io.cachegate.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cachegate bench fleet}: N gateways over one Redis, with and without coalescing across gateways. Starts a
 * simulator with a latency, a Redis, and the largest N gateways twice ({@code cache.fleet.coalesce} on and off, each
 * set its own model version so the two never share entries); then, for every N and both settings, in rotating
 * order, sends a fresh workload round-robin over N of the gateways and reports what scale-out costs: backend calls
 * per distinct request, hit rate, p99 latency of hits, Redis commands per request ({@code INFO commandstats}
 * before and after) and, at the end, the memory of an entry ({@code MEMORY USAGE}).
 */
@Command(name = "fleet", mixinStandardHelpOptions = true,
        description = {
            "N gateways over one Redis, with and without coalescing across gateways: backend calls per distinct "
                    + "request, hit rate, p99 hit latency, Redis commands per request, memory per entry.",
            "The workload: --requests chat requests, a --repeat-share of them repeats; the first --burst copies of "
                    + "each distinct request are sent together (a popular question asked by several users at once, "
                    + "landing on different gateways), the other copies later in random order. Requests go "
                    + "round-robin over the gateways from --connections client threads. "
                    + "Exit status 1 on request errors."
        })
final class BenchFleetCommand extends Scenario {

    @Option(names = "--gateways", split = ",", defaultValue = "1,2,3",
            description = "Fleet sizes to measure (default ${DEFAULT-VALUE}).")
    List<Integer> sizes;

    @Option(names = "--requests", defaultValue = "800", description = "Requests per measurement (default ${DEFAULT-VALUE}).")
    int requests;

    @Option(names = "--repeat-share", defaultValue = "0.75",
            description = "Share of the requests that repeat an earlier one (default ${DEFAULT-VALUE}).")
    double repeatShare;

    @Option(names = "--burst", defaultValue = "2",
            description = "Copies of each distinct request sent together (default ${DEFAULT-VALUE}).")
    int burst;

    @Option(names = "--connections", defaultValue = "32", description = "Client threads (default ${DEFAULT-VALUE}).")
    int connections;

    @Option(names = "--ttft-ms", defaultValue = "200", description = "Simulator time to first token (default ${DEFAULT-VALUE}).")
    int ttftMs;

    @Option(names = "--tpot-ms", defaultValue = "2", description = "Simulator time per token (default ${DEFAULT-VALUE}).")
    int tpotMs;

    @Option(names = "--redis", defaultValue = "start", paramLabel = "auto|start|cluster|URI",
            description = "start: a redis-server of its own, so the command counts are the gateways' alone; cluster: "
                    + "a Redis Cluster of its own (three masters); auto: 127.0.0.1:6379 if it answers PING; or a "
                    + "redis:// or redis-cluster:// URI (default ${DEFAULT-VALUE}).")
    String redis;

    /** One fleet size with coalescing across gateways on or off. */
    record Setting(int gateways, boolean coalesce) {
        String name() {
            return gateways + (gateways == 1 ? " gateway" : " gateways") + (coalesce ? ", coalescing" : ", per process");
        }
    }

    /** What one setting measured in one round. */
    record Measured(Setting setting, int requests, int distinct, long backendCalls, int hits, int fleetHits,
                    int errors, double p50HitMs, double p99HitMs, long redisCommands) {
    }

    BenchFleetCommand() {
        super("fleet", new ScenarioOptions("10s", "2s", 1, ScenarioOptions.CHILD_JVM_OPTS));
    }

    @Override
    void check(List<String> problems) {
        if (sizes.isEmpty() || sizes.stream().anyMatch(n -> n < 1 || n > 8)) {
            problems.add("--gateways: fleet sizes from 1 to 8");
        }
        if (repeatShare < 0 || repeatShare >= 1) {
            problems.add("--repeat-share must be in [0, 1)");
        }
        if (requests < 10 || connections < 1 || burst < 1) {
            problems.add("--requests must be >= 10, --connections and --burst >= 1");
        }
    }

    @Override
    ScenarioReport measure(BenchChildren children) throws Exception {
        ChildSimulator sim = children.simulator("sim", 1, "--ttft-ms", Integer.toString(ttftMs),
                "--tpot-ms", Integer.toString(tpotMs)).awaitReady();
        String redisUri = new LocalRedis(progress).uri(redis, children);
        int largest = Collections.max(sizes);
        String run = Long.toString(System.currentTimeMillis(), 36);
        HttpClient http = BenchScrapes.client();
        List<URI> on = fleet(children, sim, redisUri, largest, true, run, http);
        List<URI> off = fleet(children, sim, redisUri, largest, false, run, http);
        List<Setting> settings = new ArrayList<>();
        for (int n : sizes) {
            settings.add(new Setting(n, true));
            settings.add(new Setting(n, false));
        }
        try (RedisProbe probe = new RedisProbe(redisUri)) {
            var results = alternating(settings, (round, s) -> {
                progress.phase("round " + round + ": " + s.name());
                List<URI> gateways = (s.coalesce() ? on : off).subList(0, s.gateways());
                return once(http, sim, probe, s, gateways, "r" + round + "-" + run);
            });
            long[] memory = probe.meanMemory("cg:v1:{*", 200);
            return new FleetReport(this, results, memory[0], memory[1], redisUri);
        }
    }

    /** Starts {@code n} gateways with coalescing across gateways on or off; their proxy URIs once all are ready. */
    private List<URI> fleet(BenchChildren children, ChildSimulator sim, String redisUri, int n, boolean coalesce,
                            String run, HttpClient http) throws Exception {
        GatewayPolicy policy = GatewayPolicy.of(options.gatewayThreads(), sim)
                .backend("model_version: \"fleet-" + (coalesce ? "on" : "off") + "-" + run + "\"")
                .section("cache:\n  exact:\n    store: redis\n    redis_uri: \"" + redisUri + "\"\n    timeout: 200ms\n"
                        + "  fleet:\n    coalesce: " + coalesce + "\n");
        List<URI> uris = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            // One at a time: JVMs starting together on a small machine can take longer than the port wait.
            ChildGateway g = children.gateway((coalesce ? "on-" : "off-") + (i + 1), List.of(), policy).awaitReady();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (BenchScrapes.metric(BenchScrapes.get(http, g.admin().resolve("/metrics")),
                    "cachegate_cache_store_available") != 1) {
                if (System.nanoTime() > deadline) {
                    throw new Aborted(g.name() + " did not connect to Redis; logs in " + children.log("*"));
                }
                Thread.sleep(100);
            }
            uris.add(g.uri());
        }
        // Warm every gateway's hot paths with requests of their own (not measured, never repeated later).
        send(http, uris, workload("warm-" + run + (coalesce ? "-on" : "-off"), 4 * connections, 0), null);
        progress.info("%d gateways with coalescing %s ready", n, coalesce ? "on" : "off");
        return uris;
    }

    /** One measurement: a fresh workload (its own prompts) over {@code gateways}. */
    private Measured once(HttpClient http, ChildSimulator sim, RedisProbe probe, Setting s, List<URI> gateways,
                          String tag) throws Exception {
        int distinct = Math.max(1, (int) Math.round(requests * (1 - repeatShare)));
        List<byte[]> bodies = workload(tag + "-" + s.gateways() + (s.coalesce() ? "on" : "off"), requests, distinct);
        long calls = BenchScrapes.simStats(http, sim.uri()).requests();
        long commands = probe.commandsRun();
        List<Answer> answers = new ArrayList<>();
        send(http, gateways, bodies, answers);
        // Writes to Redis end after the answers: wait until the command count stands still before reading it.
        long settled = probe.commandsRun();
        for (long before = -1; before != settled; ) {
            Thread.sleep(200);
            before = settled;
            settled = probe.commandsRun();
        }
        long backendCalls = BenchScrapes.simStats(http, sim.uri()).requests() - calls;
        List<Double> hitMs = new ArrayList<>();
        int hits = 0;
        int fleetHits = 0;
        int errors = 0;
        for (Answer a : answers) {
            if (a.status() != 200) {
                errors++;
            } else if ("HIT".equals(a.xCache())) {
                hits++;
                if ("fleet".equals(a.coalesced())) {
                    fleetHits++;
                } else {
                    hitMs.add(a.millis());
                }
            }
        }
        Collections.sort(hitMs);
        return new Measured(s, requests, distinct, backendCalls, hits, fleetHits, errors, percentile(hitMs, 0.50),
                percentile(hitMs, 0.99), settled - commands);
    }

    static double percentile(List<Double> sorted, double q) {
        if (sorted.isEmpty()) {
            return Double.NaN;
        }
        return sorted.get(Math.max(0, (int) Math.ceil(q * sorted.size()) - 1));
    }

    /**
     * {@code count} requests over {@code distinct} prompts: every prompt's first {@link #burst} copies one after
     * another (so they are in flight together, on different gateways), the prompts in random order; then the rest
     * of the copies shuffled. {@code distinct} 0 makes every request distinct.
     */
    List<byte[]> workload(String tag, int count, int distinct) {
        return workload(tag, count, distinct, burst);
    }

    /** As {@link #workload(String, int, int)}, with the first {@code burst} copies of each prompt together. */
    static List<byte[]> workload(String tag, int count, int distinct, int burst) {
        int prompts = distinct <= 0 ? count : distinct;
        Random random = new Random(42);
        List<Integer> order = new ArrayList<>();
        for (int p = 0; p < prompts; p++) {
            order.add(p);
        }
        Collections.shuffle(order, random);
        List<Integer> sequence = new ArrayList<>(count);
        int[] copies = new int[prompts];
        for (int p : order) {
            for (int c = 0; c < burst && sequence.size() < count && c < Math.max(1, count / prompts); c++) {
                sequence.add(p);
                copies[p]++;
            }
        }
        List<Integer> later = new ArrayList<>();
        for (int i = 0; sequence.size() + later.size() < count; i = (i + 1) % prompts) {
            later.add(i);
        }
        Collections.shuffle(later, random);
        sequence.addAll(later);
        List<byte[]> bodies = new ArrayList<>(count);
        for (int p : sequence) {
            var body = BenchJson.object().put("model", ChatRequests.MODEL).put("temperature", 0);
            var messages = body.putArray("messages");
            messages.addObject().put("role", "system").put("content", "Fleet benchmark " + tag + ".");
            messages.addObject().put("role", "user").put("content", "Question " + p + ": what is the answer?");
            bodies.add(BenchJson.bytes(body));
        }
        return bodies;
    }

    /** One answer as the client saw it. */
    record Answer(int status, String xCache, String coalesced, double millis) {
    }

    /** Sends {@code bodies} in order from {@link #connections} threads, request i to gateway i mod size. */
    private void send(HttpClient http, List<URI> gateways, List<byte[]> bodies, List<Answer> answers)
            throws InterruptedException {
        AtomicInteger next = new AtomicInteger();
        List<Answer> collected = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(connections);
        for (int t = 0; t < connections; t++) {
            pool.execute(() -> {
                for (int i = next.getAndIncrement(); i < bodies.size(); i = next.getAndIncrement()) {
                    collected.add(call(http, gateways.get(i % gateways.size()), bodies.get(i)));
                }
            });
        }
        pool.shutdown();
        if (!pool.awaitTermination(10, TimeUnit.MINUTES)) {
            pool.shutdownNow();
        }
        if (answers != null) {
            answers.addAll(collected);
        }
    }

    private static Answer call(HttpClient http, URI gateway, byte[] body) {
        HttpRequest request = HttpRequest.newBuilder(gateway.resolve(ChatRequests.PATH)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        long t0 = System.nanoTime();
        try {
            HttpResponse<Void> r = http.send(request, HttpResponse.BodyHandlers.discarding());
            return new Answer(r.statusCode(), r.headers().firstValue("x-cache").orElse(""),
                    r.headers().firstValue("x-cache-coalesced").orElse(""), (System.nanoTime() - t0) / 1e6);
        } catch (IOException e) {
            return new Answer(0, "", "", (System.nanoTime() - t0) / 1e6);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(0, "", "", (System.nanoTime() - t0) / 1e6);
        }
    }
}
