package io.cachegate.benchmarks;

import io.cachegate.bench.BenchOptions;
import io.cachegate.bench.BenchReport;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cachegate bench compare}: Cachegate against its peers on the same request, in one run. Starts a
 * zero-latency simulator and, in front of it, Cachegate with each exact-cache store and with caching off,
 * nginx as proxy_cache keyed on the body, as a plain proxy and answering a constant (the ceiling), and where
 * they install, Portkey's open-source gateway and LiteLLM; caches the one chat request where a target caches;
 * then drives every target with wrk and with our own load generator, closed loop, targets and clients
 * alternating in rounds ({@link CompareReport}). With {@code --java}, every Cachegate target runs once per JVM
 * given, in the same rounds; with {@code --flame}, one measured run each of memory hits, Redis hits and proxying
 * is profiled ({@link FlameProfiler}).
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = {
            "Throughput and latency of Cachegate (memory, tiered and redis stores: hits; caching off: proxying) "
                    + "against nginx (proxy_cache keyed on the body, plain proxy, a constant answer: the ceiling), "
                    + "Portkey's OSS gateway (npm, when node and npm are present) and LiteLLM (pip, where it "
                    + "installs), all in front of the same zero-latency simulator, in one run.",
            "Every target is driven by wrk (Debian's package, a Lua script POSTing the chat body) and by our load "
                    + "generator, closed loop with --connections connections, targets and clients alternating "
                    + "over --rounds rounds; ratios are medians of per-round ratios to nginx in the same round.",
            "nginx and wrk are installed with apt-get when missing; Portkey with npm into ~/.cache/cachegate/peers; "
                    + "a peer that cannot be installed is skipped with a message. Exit status 1 on request errors "
                    + "of Cachegate or nginx, or a failed cache check.",
            "--java runs every Cachegate target once per JVM given (cachegate-memory@25, ...), in the same rounds: "
                    + "a same-run A/B of JDKs. --flame writes async-profiler's CPU flame graphs of one measured run "
                    + "each of memory hits, Redis hits and proxying (the last round, the first client)."
        })
final class BenchCompareCommand extends Scenario {

    /**
     * The request limit of every Cachegate target's backend. Fixed, as nginx's proxy has none: admission still runs
     * (its queues, classes and fair shares cost about 2% here), but no limit learnt from the latency of a
     * zero-latency simulator, which a saturated gateway's own delays dominate, decides the comparison
     * (docs/benchmarks.md).
     */
    static final int MAX_CONCURRENCY = 256;

    @Option(names = "--connections", defaultValue = "32",
            description = "Connections of every client, one request in flight on each (default ${DEFAULT-VALUE}).")
    int connections;

    @Option(names = "--wrk-threads", defaultValue = "1", description = "wrk's threads (default ${DEFAULT-VALUE}).")
    int wrkThreads;

    @Option(names = "--skip", split = ",", paramLabel = "TARGET",
            description = "Targets to leave out, e.g. portkey,litellm,cachegate-tiered.")
    List<String> skip = new ArrayList<>();

    @Option(names = "--redis", defaultValue = "auto", paramLabel = "auto|start|URI",
            description = "auto: 127.0.0.1:6379 if it answers PING, else start a redis-server; start: always start one; "
                    + "or a redis:// URI (default ${DEFAULT-VALUE}).")
    String redis;

    @Option(names = "--nginx-binary", defaultValue = "nginx", description = "nginx executable (default ${DEFAULT-VALUE}).")
    String nginxBinary;

    @Option(names = "--wrk-binary", defaultValue = "wrk", description = "wrk executable (default ${DEFAULT-VALUE}).")
    String wrkBinary;

    @Option(names = "--java", split = ",", paramLabel = "LABEL=PATH",
            description = "Run every Cachegate target once on each of these java executables, named TARGET@LABEL, "
                    + "e.g. 17=/usr/lib/jvm/java-17-openjdk-amd64/bin/java,25=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java "
                    + "(default: the java running this command). --child-jvm-opts applies to each.")
    List<String> java = new ArrayList<>();

    @Option(names = "--flame", paramLabel = "DIR",
            description = "Write async-profiler CPU flame graphs of one measured run each of cachegate-memory, "
                    + "cachegate-redis and cachegate-off into DIR: hit-memory.html, hit-redis.html and proxy.html "
                    + "(hit-memory@LABEL.html, ... when --java gives several JVMs).")
    Path flame;

    /** The JVMs the Cachegate targets run on: those of --java, or this one, unlabelled. */
    private List<ChildJvm> jvms = List.of();
    /** By label, what each --java JVM says its version is. */
    private final Map<String, String> versions = new LinkedHashMap<>();

    /** With --flame: the profiler, and the flame graph's file of each profiled target. */
    private FlameProfiler profiler;
    private final Map<String, String> flameFiles = new LinkedHashMap<>();

    /** One measurement: a target driven by one client. */
    record Run(CompareTarget target, String client) {
    }

    BenchCompareCommand() {
        super("compare", new ScenarioOptions("10s", "5s", 2, ScenarioOptions.CHILD_JVM_OPTS));
    }

    @Override
    void check(List<String> problems) {
        if (connections < 1 || wrkThreads < 1) {
            problems.add("--connections and --wrk-threads must be >= 1");
        }
        jvms = java.isEmpty() ? List.of(new ChildJvm("", ChildLauncher.currentJava())) : ChildJvm.parse(java, problems);
        for (ChildJvm jvm : java.isEmpty() ? List.<ChildJvm>of() : jvms) {
            jvm.version().ifPresentOrElse(v -> versions.put(jvm.label(), v),
                    () -> problems.add("--java " + jvm.label() + ": " + jvm.java() + " -version did not run"));
        }
        if (flame != null) {
            if (skip.containsAll(List.of("cachegate-memory", "cachegate-redis", "cachegate-off"))) {
                problems.add("--flame profiles cachegate-memory, cachegate-redis and cachegate-off, and --skip leaves "
                        + "them all out");
            }
            if (Files.exists(flame) && !Files.isDirectory(flame)) {
                problems.add("--flame " + flame + " is not a directory");
            }
            if (flame.toAbsolutePath().toString().contains(",")) {
                problems.add("--flame: async-profiler takes no comma in the path (" + flame + ")");
            }
            FlameProfiler.unavailable().ifPresent(why -> problems.add("--flame: " + why));
        }
    }

    @Override
    ScenarioReport measure(BenchChildren children) throws Exception {
        // nginx workers run as an unprivileged user when we are root: they must reach their cache dirs inside.
        Files.setPosixFilePermissions(children.dir(), PosixFilePermissions.fromString("rwxr-xr-x"));
        byte[] body = requestBody();
        ChildSimulator sim = children.simulator("sim", 1).awaitReady();
        HttpClient http = BenchScrapes.client();
        byte[] answer = send(http, sim.uri(), Map.of(), body).body();
        progress.info("simulator on %s; the chat answer is %d bytes", sim.uri(), answer.length);
        Map<String, String> notes = new LinkedHashMap<>();
        String loadBefore = loadAverage();
        if (flame != null) {
            Files.createDirectories(flame);
            profiler = FlameProfiler.extract(children.dir());
        }
        notes.put("java", javaNote());
        notes.put("cachegate", "backend max_concurrency " + MAX_CONCURRENCY + " (a fixed request limit, as nginx "
                + "has none, rather than one learnt from this zero-latency backend's latency)");
        List<CompareTarget> targets = new ArrayList<>(gateways(children, sim));
        ReferenceTargets references = new ReferenceTargets(skip, progress, children, sim, notes);
        targets.addAll(references.nginx(nginxBinary, answer));
        targets.addAll(references.peers());
        Optional<Wrk> wrk = wrk(notes);
        for (CompareTarget t : targets) {
            LocalProcesses.awaitPort(t.uri().getPort());
            progress.info("%s on %s", t.name(), t.uri());
        }
        Map<String, Integer> sizes = new LinkedHashMap<>();
        for (CompareTarget t : targets) {
            sizes.put(t.name(), fillAndCheck(http, t, body, answer, children));
        }
        List<String> warmups = new ArrayList<>();
        for (CompareTarget t : targets) {
            phase("warm-up " + t.name() + " (not recorded)", load(t, body), options.warmup(), Duration.ZERO);
            if (t.server() != null) {
                JitWarmup.untilQuiet(t.server().pid(), length -> phase("warm-up " + t.name()
                        + " until its JIT is quiet (not recorded)", load(t, body), length, Duration.ZERO))
                        .ifPresent(o -> warmups.add(t.name() + " " + o.describe()));
            }
        }
        notes.put("warm-up", options.warmup().toSeconds() + "s each" + (warmups.isEmpty() ? ""
                : "; JVM targets until their JIT compiler used under " + Math.round(JitWarmup.QUIET_SHARE * 100)
                + "% of their CPU over " + JitWarmup.SLICE.toSeconds() + "s: " + String.join(", ", warmups)));
        List<String> clients = wrk.isPresent() ? List.of("wrk", "cachegate-bench") : List.of("cachegate-bench");
        List<Run> runs = new ArrayList<>();
        for (CompareTarget t : targets) {
            clients.forEach(c -> runs.add(new Run(t, c)));
        }
        Map<String, Path> scripts = new LinkedHashMap<>();
        for (CompareTarget t : targets) {
            scripts.put(t.name(), Wrk.write(children.dir(), t.name(), Wrk.script(ChatRequests.PATH, body, t.headers())));
        }
        List<String> profiled = new ArrayList<>();
        Map<Run, List<CompareTable.Sample>> samples = alternating(runs, (r, run) -> {
            long before = BenchScrapes.simStats(http, sim.uri()).requests();
            ProcessHandle server = run.target().server();
            String label = "round " + r + ": " + run.target().name() + " by " + run.client();
            // A profiled target's one profiled run: the last round's, by the first client (wrk when present).
            String flameFile = r == options.rounds() && run.client().equals(clients.get(0))
                    ? flameFiles.get(run.target().name()) : null;
            String event = flameFile == null ? null : profiling(() -> profiler.start(server.pid()), children);
            Duration cpuBefore = server == null ? null : ServerCpu.used(server);
            CompareTable.Sample s = run.client().equals("wrk")
                    ? wrkPhase(wrk.orElseThrow(), label, run.target(), scripts.get(run.target().name()))
                    : loadPhase(label, run.target(), body);
            double cpu = server == null ? Double.NaN
                    : ServerCpu.microsPerRequest(cpuBefore, ServerCpu.used(server), s.requests());
            if (flameFile != null) {
                Path html = flame.resolve(flameFile);
                String title = run.target().name() + " " + run.target().kind().name().toLowerCase(Locale.ROOT) + " by "
                        + run.client() + " in round " + r + " (async-profiler " + event + ")";
                profiling(() -> profiler.stop(server.pid(), html, title), children);
                progress.info("flame graph of %s: %s (event %s)", run.target().name(), html, event);
                profiled.add(flameFile + " (" + event + ")");
            }
            long calls = BenchScrapes.simStats(http, sim.uri()).requests() - before;
            return new CompareTable.Sample(s.throughput(), s.p50Ms(), s.p99Ms(), s.requests(), s.errors(), calls, cpu);
        });
        Map<String, CompareTable> tables = new LinkedHashMap<>();
        for (String client : clients) {
            Map<String, List<CompareTable.Sample>> byTarget = new LinkedHashMap<>();
            samples.forEach((run, s) -> {
                if (run.client().equals(client)) {
                    byTarget.put(run.target().name(), s);
                }
            });
            tables.put(client, new CompareTable(byTarget));
        }
        notes.put("machine", "load average (1, 5, 15 min) " + loadBefore + " before, " + loadAverage()
                + " after: other processes share the cores");
        notes.put("wrk", wrk.isPresent() ? wrk.get().version() : notes.getOrDefault("wrk", "not installed"));
        if (flame != null) {
            notes.put("flame", String.join(", ", profiled) + " in " + flame.toAbsolutePath() + ": round "
                    + options.rounds() + " by " + clients.get(0) + "; the figures of those runs include the sampling");
        }
        return new CompareReport(targets, tables, notes, sizes, answer.length, body.length, connections, wrkThreads,
                options.rounds(), options.duration());
    }

    /**
     * Cachegate with each exact-cache store, and with caching off, each on every JVM of {@link #jvms}; with
     * --flame, the memory-store, Redis-store and caching-off gateways load the profiler's agent.
     */
    private List<CompareTarget> gateways(BenchChildren children, ChildSimulator sim) throws Exception {
        List<CompareTarget> out = new ArrayList<>();
        List<String> stores = List.of("memory", "tiered", "redis").stream()
                .filter(s -> !skip.contains("cachegate-" + s)).toList();
        String redisUri = stores.stream().anyMatch(s -> !s.equals("memory"))
                ? new LocalRedis(progress).uri(redis, children) : null;
        for (String store : stores) {
            GatewayPolicy policy = GatewayPolicy.of(options.gatewayThreads(), sim).pinModelVersion()
                    .backend("max_concurrency: " + MAX_CONCURRENCY)
                    .section("cache:\n  exact:\n    store: " + store + "\n"
                            + ("memory".equals(store) ? "" : "    redis_uri: \"" + redisUri + "\"\n"));
            for (ChildJvm jvm : jvms) {
                out.add(gateway(children, "cachegate-" + store, jvm, CompareTarget.Kind.HIT, "x-cache", policy));
            }
        }
        if (!skip.contains("cachegate-off")) {
            GatewayPolicy policy = GatewayPolicy.of(options.gatewayThreads(), sim).pinModelVersion()
                    .backend("max_concurrency: " + MAX_CONCURRENCY)
                    .route("*", "cache: { exact: false }");
            for (ChildJvm jvm : jvms) {
                out.add(gateway(children, "cachegate-off", jvm, CompareTarget.Kind.PROXY, null, policy));
            }
        }
        return out;
    }

    /** One Cachegate target: {@code name} on {@code jvm}, profiled with --flame when it is one of the three. */
    private CompareTarget gateway(BenchChildren children, String name, ChildJvm jvm, CompareTarget.Kind kind,
                                  String hitHeader, GatewayPolicy policy) throws IOException {
        String target = targetName(name, jvm);
        Optional<String> flameFile = flameFile(target, jvms.size() > 1);
        List<String> agent = List.of();
        if (profiler != null && flameFile.isPresent()) {
            flameFiles.put(target, flameFile.get());
            agent = List.of(profiler.agentOption());
        }
        // The child's name (its log and policy file) without the '@': cachegate-bench-compare-gateway-memory-25.log.
        String child = name.substring("cachegate-".length()) + (jvm.label().isEmpty() ? "" : "-" + jvm.label());
        ChildGateway g = children.gateway(child, jvm.java(), agent, policy);
        return new CompareTarget(target, kind, g.uri(), Map.of(), hitHeader, g.process().toHandle());
    }

    /** Runs a profiler command; its failure ends the run with the reason (an {@link Aborted}), not a stack trace. */
    private static <T> T profiling(ProfilerCommand<T> command, BenchChildren children) throws Aborted {
        try {
            return command.run();
        } catch (IOException e) {
            throw new Aborted("--flame: " + e.getMessage() + "; logs in " + children.log("*"));
        }
    }

    /** A {@link FlameProfiler} call. */
    @FunctionalInterface
    private interface ProfilerCommand<T> {
        T run() throws IOException;
    }

    /** {@code cachegate-memory} on a labelled JVM is {@code cachegate-memory@LABEL}; on this one, as it is. */
    static String targetName(String name, ChildJvm jvm) {
        return jvm.label().isEmpty() ? name : name + "@" + jvm.label();
    }

    /**
     * The flame graph's file of a target that --flame profiles: {@code hit-memory.html} for cachegate-memory,
     * {@code proxy.html} for cachegate-off, with the JVM's label ({@code hit-memory@25.html}) when {@code labelled}
     * (--java gave several JVMs); empty for any other target.
     */
    static Optional<String> flameFile(String target, boolean labelled) {
        int at = target.indexOf('@');
        String name = at < 0 ? target : target.substring(0, at);
        String label = labelled && at >= 0 ? target.substring(at) : "";
        return switch (name) {
            case "cachegate-memory" -> Optional.of("hit-memory" + label + ".html");
            case "cachegate-redis" -> Optional.of("hit-redis" + label + ".html");
            case "cachegate-off" -> Optional.of("proxy" + label + ".html");
            default -> Optional.empty();
        };
    }

    /** Which java the Cachegate children run on, with its version: the report says what it measured. */
    private String javaNote() {
        if (java.isEmpty()) {
            return "Cachegate and the simulator on " + ChildLauncher.currentJava() + " (Java " + Runtime.version() + ")";
        }
        List<String> each = new ArrayList<>();
        for (ChildJvm jvm : jvms) {
            each.add("@" + jvm.label() + " = " + jvm.java() + " (" + versions.get(jvm.label()) + ")");
        }
        return "Cachegate targets: " + String.join("; ", each) + "; the simulator on " + ChildLauncher.currentJava();
    }

    private Optional<Wrk> wrk(Map<String, String> notes) throws InterruptedException {
        Optional<String> binary = new SetupCommands(progress).findOrApt(wrkBinary, "wrk");
        if (binary.isEmpty()) {
            notes.put("wrk", "not installed and apt-get could not install it: only our load generator measured");
        }
        return binary.map(b -> new Wrk(b, wrkThreads));
    }

    /**
     * Sends the request until the target answers it from its cache (a HIT target), checks a 200 and, for the
     * ceiling, the very bytes of the simulator's answer; the size of the answer's body.
     */
    private int fillAndCheck(HttpClient http, CompareTarget t, byte[] body, byte[] answer, BenchChildren children)
            throws Exception {
        HttpResponse<byte[]> first = send(http, t.uri(), t.headers(), body);
        HttpResponse<byte[]> last = first;
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (t.kind() == CompareTarget.Kind.HIT && !hit(t, last) && System.nanoTime() < deadline) {
            Thread.sleep(100); // write-back is asynchronous
            last = send(http, t.uri(), t.headers(), body);
        }
        if (last.statusCode() != 200 || t.kind() == CompareTarget.Kind.HIT && !hit(t, last)
                || t.kind() == CompareTarget.Kind.CEILING && !Arrays.equals(last.body(), answer)) {
            throw new Aborted(t.name() + " answered " + last.statusCode() + (t.hitHeader() == null ? ""
                    : " " + t.hitHeader() + ": " + last.headers().firstValue(t.hitHeader()).orElse("none"))
                    + " (" + last.body().length + " bytes); logs in " + children.log("*"));
        }
        progress.info("%s: answers 200 with %d bytes%s", t.name(), last.body().length,
                t.hitHeader() == null ? "" : ", " + t.hitHeader() + ": " + last.headers().firstValue(t.hitHeader()).orElse(""));
        return last.body().length;
    }

    private static boolean hit(CompareTarget t, HttpResponse<byte[]> r) {
        return r.headers().firstValue(t.hitHeader()).orElse("").equalsIgnoreCase("HIT");
    }

    private static HttpResponse<byte[]> send(HttpClient http, URI target, Map<String, String> headers, byte[] body)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(target.resolve(ChatRequests.PATH))
                .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(request::header);
        return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private BenchOptions.Builder load(CompareTarget t, byte[] body) {
        return BenchOptions.builder(t.uri(), ChatRequests.inOrder(List.of(body), false)).closedLoop(connections)
                .headers(t.headers());
    }

    private CompareTable.Sample loadPhase(String label, CompareTarget t, byte[] body) throws InterruptedException {
        // No unrecorded ramp (the targets are warm, and wrk has none): every backend call falls in the recorded count.
        BenchReport r = phase(label, load(t, body), options.duration(), Duration.ZERO);
        return new CompareTable.Sample(r.throughput(), r.total().p50Ms(), r.total().p99Ms(), r.requests(), r.errors(), 0,
                Double.NaN);
    }

    private CompareTable.Sample wrkPhase(Wrk wrk, String label, CompareTarget t, Path script) throws Exception {
        progress.phase(label);
        Wrk.Result r = wrk.run(t.uri().resolve(ChatRequests.PATH), script, connections, options.duration());
        progress.info("%.0f requests/s, p50 %.3f ms, p99 %.3f ms, errors %d", r.throughput(), r.p50Ms(), r.p99Ms(),
                r.errors());
        return new CompareTable.Sample(r.throughput(), r.p50Ms(), r.p99Ms(), r.requests(), r.errors(), 0, Double.NaN);
    }

    /**
     * The one chat request of the run: deterministic (temperature 0), so every cache may keep its answer, and
     * without max_tokens, so the simulator ends it with {@code stop} (an answer cut at max_tokens is not cached).
     */
    static byte[] requestBody() {
        var body = BenchJson.object().put("model", ChatRequests.MODEL).put("temperature", 0);
        var messages = body.putArray("messages");
        messages.addObject().put("role", "system").put("content", "You are a concise assistant.");
        messages.addObject().put("role", "user").put("content", "Explain TCP congestion control in a paragraph.");
        return BenchJson.bytes(body);
    }

    /** The first three fields of /proc/loadavg (what else runs on the machine skews every figure), or "?". */
    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f.length >= 3 ? f[0] + " " + f[1] + " " + f[2] : "?";
        } catch (IOException e) {
            return "?";
        }
    }
}
