package io.cachegate.benchmarks;

import io.cachegate.bench.BenchOptions;
import io.cachegate.bench.BenchReport;
import io.cachegate.bench.RequestSource;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cachegate bench exact-cache}: the exact cache's hit path against nginx's {@code proxy_cache}.
 * Starts a zero-latency simulator, a Redis (the one on 127.0.0.1:6379 if it answers, else its own),
 * one gateway per store ({@code memory}, {@code redis}, optionally {@code tiered}) and an nginx keyed
 * on the request body, all as child processes; caches a fixed request set in each, checks that a
 * second pass is all hits, then measures closed-loop hit throughput and open-loop hit latency in
 * alternating rounds, and reports medians and ratios against nginx ({@link ExactCacheReport}).
 */
@Command(name = "exact-cache", mixinStandardHelpOptions = true,
        description = {
            "Exact-cache hit throughput and latency with each store, against nginx proxy_cache keyed on the request "
                    + "body as the reference, in one run.",
            "Starts a zero-latency simulator, Redis (127.0.0.1:6379 if it answers PING, else its own redis-server), "
                    + "one gateway per store and nginx (installed with apt-get when missing) as child processes; caches "
                    + "--requests distinct deterministic chat requests in each and checks a second pass is all hits; then "
                    + "--warmup of closed-loop hits on each target, closed-loop throughput rounds, then open-loop latency "
                    + "rounds at --rate, targets alternating. "
                    + "Exit status 1 on request errors, misses during the measurement, or a failed hit check."
        })
final class BenchExactCacheCommand extends Scenario {

    private static final Duration PHASE_RAMP = Duration.ofSeconds(2);
    private static final List<String> STORES = List.of("memory", "redis", "tiered");

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

    @Option(names = "--api", split = ",", defaultValue = "chat",
            description = "The APIs the cached requests call, chat (/v1/chat/completions) and/or responses "
                    + "(/v1/responses): the same questions, each API a target of its own on the same gateway, "
                    + "alternating (default ${DEFAULT-VALUE}).")
    List<String> apis;

    @Option(names = "--requests", defaultValue = "100", description = "Distinct cached requests (default ${DEFAULT-VALUE}).")
    int requests;

    @Option(names = "--connections", defaultValue = "32",
            description = "Connections of the closed-loop throughput phases (default ${DEFAULT-VALUE}).")
    int connections;

    @Option(names = "--rate", defaultValue = "0",
            description = "Open-loop rate, requests/s; 0 = half the lowest median hit throughput of the closed loop "
                    + "(default ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--gateway-jvm-opts", defaultValue = "",
            description = "Extra JVM options of the gateway processes only, e.g. to profile: "
                    + "'-XX:StartFlightRecording=filename=/tmp/gw-{store}.jfr,settings=profile'; {store} is replaced "
                    + "by the store name.")
    String gatewayJvmOpts;

    /** One thing measured: a gateway with one store, or nginx, answering the requests to one API. */
    record Target(String name, URI uri, String hitHeader, URI admin, String path, List<byte[]> bodies) {

        RequestSource source() {
            return ChatRequests.inOrder(path, bodies, false);
        }
    }

    BenchExactCacheCommand() {
        super("exact-cache", new ScenarioOptions("10s", "10s", 3, ScenarioOptions.CHILD_JVM_OPTS));
    }

    @Override
    void check(List<String> problems) {
        for (String store : stores) {
            if (!STORES.contains(store)) {
                problems.add("--stores: unknown store \"" + store + "\" (memory, redis, tiered)");
            }
        }
        for (String api : apis) {
            if (!api.equals("chat") && !api.equals("responses")) {
                problems.add("--api: unknown API \"" + api + "\" (chat, responses)");
            }
        }
        if (requests < 1 || connections < 1) {
            problems.add("--requests and --connections must be >= 1");
        }
    }

    @Override
    ScenarioReport measure(BenchChildren children) throws Exception {
        // nginx workers run as an unprivileged user when we are root: they must reach their cache dirs inside.
        Files.setPosixFilePermissions(children.dir(), PosixFilePermissions.fromString("rwxr-xr-x"));
        List<byte[]> bodies = requestBodies(requests, responses(apis.get(0)));
        ChildSimulator sim = children.simulator("sim", 1).awaitReady();
        progress.info("simulator on %s", sim.uri());
        String redisUri = stores.contains("redis") || stores.contains("tiered")
                ? new LocalRedis(progress).uri(redis, children) : null;
        List<Target> targets = new ArrayList<>();
        for (String store : stores) {
            List<String> extra = gatewayJvmOpts.isBlank() ? List.of()
                    : List.of(gatewayJvmOpts.replace("{store}", store).trim().split("\\s+"));
            ChildGateway g = children.gateway(store, extra, policy(sim, store, redisUri));
            targets.addAll(perApi(store, g.uri(), "x-cache", g.admin()));
        }
        String nginxNote = null;
        if (!noNginx) {
            Optional<String> binary = NginxReference.findOrInstall(nginxBinary, progress);
            if (binary.isEmpty()) {
                nginxNote = "skipped: nginx is not installed and apt-get could not install it (see above)";
            } else {
                URI nginx = NginxReference.start(binary.get(), children, sim.port());
                targets.addAll(perApi("nginx", nginx, "x-cache-status", null));
                nginxNote = "nginx " + NginxReference.version(binary.get()) + " proxy_cache, key \"$request_uri|$request_body\"";
            }
        }
        for (Target t : targets) {
            LocalProcesses.awaitPort(t.uri().getPort());
            progress.info("%s on %s", t.name(), t.uri());
        }
        HttpClient http = BenchScrapes.client();
        fillAndCheck(http, targets, children);

        for (Target t : targets) {
            run(t, t.source(), BenchOptions.Mode.CLOSED, 0, options.warmup(), Duration.ZERO, "warm-up " + t.name() + " (not recorded)");
        }
        Map<String, Long> backendCalls = new LinkedHashMap<>();
        targets.forEach(t -> backendCalls.put(t.name(), 0L));
        Map<Target, List<BenchReport>> closed = alternating(targets, (r, t) -> counted(http, sim, t, backendCalls,
                () -> run(t, t.source(), BenchOptions.Mode.CLOSED, 0, options.duration(), PHASE_RAMP, "round " + r + ": closed loop, " + t.name())));
        boolean autoRate = rate <= 0;
        double openRate = autoRate ? Math.floor(closed.values().stream()
                .mapToDouble(reports -> Medians.of(reports.stream().mapToDouble(BenchReport::throughput)))
                .min().orElseThrow() / 2) : rate;
        progress.info("open-loop rate %.0f/s%s", openRate, autoRate ? " (half the lowest median closed-loop throughput)" : "");
        Map<Target, List<BenchReport>> open = alternating(targets, (r, t) -> counted(http, sim, t, backendCalls,
                () -> run(t, t.source(), BenchOptions.Mode.OPEN, openRate, options.duration(), PHASE_RAMP,
                        "round " + r + ": open loop at " + Math.round(openRate) + "/s, " + t.name())));
        // A last check that the caches still hold everything (e.g. nothing evicted or purged meanwhile).
        Map<String, Map<String, Integer>> after = new LinkedHashMap<>();
        Map<String, Map<String, Long>> lookups = new LinkedHashMap<>();
        for (Target t : targets) {
            after.put(t.name(), pass(http, t));
            if (t.admin() != null) {
                lookups.put(t.name(), BenchScrapes.lookupsByOutcome(BenchScrapes.get(http, t.admin().resolve("/metrics"))));
            }
        }
        return new ExactCacheReport(this, closed, open, backendCalls, after, lookups, openRate, autoRate, nginxNote,
                bodies, redisUri);
    }

    /** Caches every request in every target, then checks that a second pass is all hits. */
    private void fillAndCheck(HttpClient http, List<Target> targets, BenchChildren children) throws Exception {
        for (Target t : targets) {
            Map<String, Integer> first = pass(http, t);
            Map<String, Integer> second = Map.of();
            long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
            while (System.nanoTime() < deadline) {
                Thread.sleep(200); // write-back is asynchronous
                second = pass(http, t);
                if (second.getOrDefault("HIT", 0) == t.bodies().size()) {
                    break;
                }
            }
            progress.info("%s: cache fill pass %s, check pass %s", t.name(), first, second);
            if (second.getOrDefault("HIT", 0) != t.bodies().size()) {
                throw new Aborted(t.name() + " does not answer every cached request from its cache (" + second
                        + "); logs in " + children.log("*"));
            }
        }
    }

    /** {@code phase}, adding the backend calls made meanwhile (misses) to {@code backendCalls}. */
    private static BenchReport counted(HttpClient http, ChildSimulator sim, Target t, Map<String, Long> backendCalls,
                                       Phase phase) throws Exception {
        long before = BenchScrapes.simStats(http, sim.uri()).requests();
        BenchReport report = phase.run();
        backendCalls.merge(t.name(), BenchScrapes.simStats(http, sim.uri()).requests() - before, Long::sum);
        return report;
    }

    @FunctionalInterface
    private interface Phase {
        BenchReport run() throws Exception;
    }

    private static boolean responses(String api) {
        return "responses".equals(api);
    }

    /** The paths measured, in --api order. */
    List<String> paths() {
        return apis.stream().map(api -> responses(api) ? ChatRequests.RESPONSES_PATH : ChatRequests.PATH).toList();
    }

    /** One target per --api on {@code uri}, named {@code name} alone when one API is measured. */
    private List<Target> perApi(String name, URI uri, String hitHeader, URI admin) {
        List<Target> targets = new ArrayList<>();
        for (String api : apis) {
            targets.add(new Target(apis.size() == 1 ? name : name + "/" + api, uri, hitHeader, admin,
                    responses(api) ? ChatRequests.RESPONSES_PATH : ChatRequests.PATH,
                    requestBodies(requests, responses(api))));
        }
        return targets;
    }

    /** Distinct deterministic chat requests (temperature 0, no max_tokens: the simulator ends them with "stop"). */
    static List<byte[]> requestBodies(int count) {
        return requestBodies(count, false);
    }

    /**
     * As {@link #requestBodies(int)}, or the same questions as Responses API requests (the system prompt as
     * {@code instructions}, the question as the {@code input} string) when {@code responses}.
     */
    static List<byte[]> requestBodies(int count, boolean responses) {
        String[] topics = {"the water cycle", "TCP congestion control", "photosynthesis", "the French Revolution",
            "binary search", "plate tectonics", "compound interest", "the immune system", "public-key cryptography",
            "how vaccines work"};
        List<byte[]> bodies = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            var body = BenchJson.object().put("model", ChatRequests.MODEL).put("temperature", 0);
            String question = "Question " + i + ": explain " + topics[i % topics.length] + " in three sentences.";
            if (responses) {
                body.put("instructions", "You are a concise assistant.").put("input", question);
                bodies.add(BenchJson.bytes(body));
                continue;
            }
            var messages = body.putArray("messages");
            messages.addObject().put("role", "system").put("content", "You are a concise assistant.");
            messages.addObject().put("role", "user").put("content", question);
            bodies.add(BenchJson.bytes(body));
        }
        return bodies;
    }

    private GatewayPolicy policy(ChildSimulator sim, String store, String redisUri) {
        return GatewayPolicy.of(options.gatewayThreads(), sim)
                .pinModelVersion()
                .section("cache:\n  exact:\n    store: " + store + "\n"
                        + ("memory".equals(store) ? "" : "    redis_uri: \"" + redisUri + "\"\n"));
    }

    /** Sends every request once; counts the answers by cache status (HIT, MISS, ..., or "status <code>"). */
    private static Map<String, Integer> pass(HttpClient http, Target t) throws IOException, InterruptedException {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (byte[] body : t.bodies()) {
            HttpRequest request = HttpRequest.newBuilder(t.uri().resolve(t.path())).timeout(Duration.ofSeconds(10))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
            HttpResponse<Void> response = http.send(request, HttpResponse.BodyHandlers.discarding());
            String outcome = response.statusCode() != 200 ? "status " + response.statusCode()
                    : response.headers().firstValue(t.hitHeader()).orElse("none");
            counts.merge(outcome, 1, Integer::sum);
        }
        return counts;
    }

    private BenchReport run(Target t, RequestSource source, BenchOptions.Mode mode, double perSecond,
                            Duration recorded, Duration ramp, String label) throws InterruptedException {
        BenchOptions.Builder load = BenchOptions.builder(t.uri(), source);
        return phase(label, mode == BenchOptions.Mode.OPEN ? load.openLoop(perSecond, 256) : load.closedLoop(connections),
                recorded, ramp);
    }
}
