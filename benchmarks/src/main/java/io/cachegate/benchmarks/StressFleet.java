package io.cachegate.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The separate processes of a stress test and the faults done to them: one redis-server, one simulator and
 * 1–3 gateways ({@code serve}, store {@code redis}, coalescing across gateways on) sharing both. A gateway can be
 * SIGKILLed and started again on its ports, Redis killed, restarted or stalled ({@link #redis()}), the simulator
 * restarted with other latency or fault options, the cores starved ({@link CpuHogs}). Every process is destroyed by
 * {@link #close()}, or by the JVM's shutdown hook should the caller never get there.
 */
public final class StressFleet implements AutoCloseable {

    private static final Pattern HEAP_USED = Pattern.compile("(?m)^\\s*(?!Metaspace|class space)[A-Za-z-]+[^\\n]*?used (\\d+)K");

    private final BenchChildren children;
    private final RedisServer redis;
    private final GatewayPolicy policy;
    private final List<ChildGateway> gateways = new ArrayList<>();
    private final HttpClient http = BenchScrapes.client();
    private ChildSimulator simulator;
    /** Calls counted by simulators since replaced: a restart starts the simulator's count at 0. */
    private long earlierCalls;

    private StressFleet(BenchChildren children, RedisServer redis, ChildSimulator simulator, GatewayPolicy policy) {
        this.children = children;
        this.redis = redis;
        this.simulator = simulator;
        this.policy = policy;
    }

    /**
     * Starts Redis, a simulator with {@code simulatorOptions} (e.g. {@code --ttft-ms 300 --tpot-ms 5}) and
     * {@code gateways} gateways with {@code jvmOptions}, one after another (JVMs starting together on a small machine
     * are slow), and waits until every gateway reports its store available. {@code name} names the log files.
     */
    public static StressFleet start(ChildLauncher launcher, String name, int gateways, String jvmOptions,
                                    String... simulatorOptions) throws IOException, InterruptedException {
        return start(launcher, name, gateways, jvmOptions, List.of(), simulatorOptions);
    }

    /** As above, with settings of the gateways' backend, e.g. {@code "timeouts: { first_byte: 3s }"}. */
    public static StressFleet start(ChildLauncher launcher, String name, int gateways, String jvmOptions,
                                    List<String> backendSettings, String... simulatorOptions)
            throws IOException, InterruptedException {
        return start(new BenchChildren(name, launcher, jvmOptions), gateways, backendSettings, simulatorOptions);
    }

    /** As above, in {@code children} (a scenario's, closed by it too). */
    static StressFleet start(BenchChildren children, int gateways, List<String> backendSettings,
                             String... simulatorOptions) throws IOException, InterruptedException {
        RedisServer redis = null;
        try {
            redis = RedisServer.start(children.log("redis"));
            ChildSimulator sim = children.simulator("sim", 1, simulatorOptions).awaitReady();
            // A pinned model version: keys do not wait for /v1/models, and a restarted gateway makes the same keys.
            GatewayPolicy policy = GatewayPolicy.of(0, sim).pinModelVersion()
                    .backend(backendSettings.toArray(String[]::new))
                    .section("cache:\n  exact:\n    store: redis\n    redis_uri: \"" + redis.uri() + "\"\n"
                            + "  fleet:\n    coalesce: true\n");
            StressFleet fleet = new StressFleet(children, redis, sim, policy);
            for (int i = 0; i < gateways; i++) {
                fleet.gateways.add(fleet.startGateway("g" + (i + 1), LocalProcesses.freePort(), LocalProcesses.freePort()));
            }
            fleet.awaitStores(Duration.ofSeconds(30));
            return fleet;
        } catch (IOException | InterruptedException | RuntimeException e) {
            children.close();
            if (redis != null) {
                redis.close();
            }
            throw e;
        }
    }

    private ChildGateway startGateway(String name, int port, int admin) throws IOException, InterruptedException {
        Path file = children.dir().resolve("policy-" + name + ".yaml");
        Files.writeString(file, policy.yaml(port, admin));
        Process p = children.start("gateway-" + name, "serve", "--config", file.toString());
        return new ChildGateway(name, URI.create("http://127.0.0.1:" + port), URI.create("http://127.0.0.1:" + admin), p)
                .awaitReady();
    }

    public RedisServer redis() {
        return redis;
    }

    public int size() {
        return gateways.size();
    }

    /** Gateway {@code i}'s proxy URI. */
    public URI gateway(int i) {
        return gateways.get(i).uri();
    }

    /** Every gateway's proxy URI, in order. */
    public List<URI> gateways() {
        return gateways.stream().map(ChildGateway::uri).toList();
    }

    public boolean alive(int i) {
        return gateways.get(i).process().isAlive();
    }

    public long pid(int i) {
        return gateways.get(i).process().pid();
    }

    /** SIGKILLs gateway {@code i}: no drain, no lease released, its connections reset. */
    public void killGateway(int i) throws InterruptedException {
        children.kill(gateways.get(i).process());
    }

    /** Starts gateway {@code i} again on its ports (killing it first if it runs) and waits for its store. */
    public void restartGateway(int i) throws IOException, InterruptedException {
        ChildGateway old = gateways.get(i);
        if (old.process().isAlive()) {
            children.kill(old.process());
        }
        gateways.set(i, startGateway(old.name(), old.uri().getPort(), old.admin().getPort()));
        awaitStores(Duration.ofSeconds(30));
    }

    /** Restarts dead gateways and a dead Redis, so that a test row starts from a healthy fleet. */
    public void heal() throws IOException, InterruptedException {
        if (!redis.running()) {
            redis.restart();
        }
        for (int i = 0; i < gateways.size(); i++) {
            if (!alive(i)) {
                restartGateway(i);
            }
        }
        awaitStores(Duration.ofSeconds(30));
        awaitStoreRoundTrips(Duration.ofSeconds(30));
    }

    /**
     * Waits until every live gateway answers a cacheable probe of its own without a failed store lookup. A gateway
     * that sent Redis nothing while it was down still reports its store available, but its connection is the
     * killed one until the client's reconnect (with back-off) comes through: its first lookups after a restart fail.
     */
    public void awaitStoreRoundTrips(Duration atMost) throws IOException, InterruptedException {
        awaitProbes(atMost, "Store probe", true, "still failed store lookups after " + atMost);
    }

    /**
     * Probes every live gateway that has not passed yet, all at once (a probe waits out the simulator's first token,
     * so one after another cost a row of this suite a second), every 250 ms until each has answered 200 and, with
     * {@code storeClean}, failed no store lookup meanwhile.
     */
    private void awaitProbes(Duration atMost, String what, boolean storeClean, String failure)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + atMost.toNanos();
        Set<Integer> pending = new TreeSet<>();
        for (int i = 0; i < gateways.size(); i++) {
            pending.add(i);
        }
        for (int round = 0; ; round++) {
            pending.removeIf(i -> !alive(i));
            List<Probe> probes = new ArrayList<>();
            for (int i : pending) {
                probes.add(new Probe(i, storeClean ? storeErrors(i) : 0, probe(i, what + " " + round)));
            }
            for (Probe p : probes) {
                if (status(p.answer()) == 200 && (!storeClean || storeErrors(p.gateway()) == p.storeErrorsBefore())) {
                    pending.remove(p.gateway());
                }
            }
            if (pending.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(pending.stream().map(i -> gateways.get(i).name()).toList() + " "
                        + failure + "; logs in " + children.log("*"));
            }
            Thread.sleep(250);
        }
    }

    /** One gateway's probe of a round, with its failed store lookups before it was sent. */
    private record Probe(int gateway, double storeErrorsBefore, CompletableFuture<HttpResponse<Void>> answer) {
    }

    /** A chat request of its own (never asked before) sent to gateway {@code i}. */
    private CompletableFuture<HttpResponse<Void>> probe(int i, String what) {
        byte[] body = BurstClient.chat(what + " of " + gateways.get(i).name() + " at " + System.nanoTime());
        HttpRequest request = HttpRequest.newBuilder(gateway(i).resolve(ChatRequests.PATH))
                .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.discarding());
    }

    /** A probe's status, or -1 when it could not be sent or answered (the gateway is starting, its backend away). */
    private static int status(CompletableFuture<HttpResponse<Void>> probe) throws InterruptedException {
        try {
            return probe.get().statusCode();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException) {
                return -1;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    /** Failed exact-store lookups of gateway {@code i} so far; 0 before the first. */
    private double storeErrors(int i) throws IOException, InterruptedException {
        double errors = BenchScrapes.metric(metrics(i), "cachegate_cache_lookups_total", "layer=\"exact\"",
                "outcome=\"error\"");
        return Double.isNaN(errors) ? 0 : errors;
    }

    /**
     * Waits until every live gateway answers a chat request of its own with a 200: after a backend restart a gateway
     * may have ejected its only replica for a while ({@code health.eject_for}), which would spill into the next test.
     */
    public void awaitServing(Duration atMost) throws IOException, InterruptedException {
        awaitProbes(atMost, "Probe", false, "did not answer 200 within " + atMost);
    }

    /** Replaces the simulator by one on the same port with {@code options} (latency, {@code --error-rate}, ...). */
    public void restartSimulator(String... options) throws IOException, InterruptedException {
        earlierCalls += simulatorCalls();
        children.stop(simulator.process());
        List<String> args = new ArrayList<>(List.of("simulate-backend", "--port", Integer.toString(simulator.port())));
        args.addAll(List.of(options));
        simulator = new ChildSimulator(children.start("sim", args.toArray(String[]::new)), simulator.port(), 1)
                .awaitReady();
    }

    /** Backend calls so far: every request the simulators received, counted by the simulator itself. */
    public long backendCalls() throws IOException, InterruptedException {
        return earlierCalls + simulatorCalls();
    }

    private long simulatorCalls() throws IOException, InterruptedException {
        return BenchScrapes.simStats(http, simulator.uri()).requests();
    }

    /** Waits until the simulator runs nothing and queues nothing (calls a follower made late have ended). */
    public void awaitBackendIdle(Duration atMost) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (!BenchScrapes.simStats(http, simulator.uri()).idle() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
    }

    /** Gateway {@code i}'s Prometheus page. */
    public String metrics(int i) throws IOException, InterruptedException {
        return BenchScrapes.get(http, gateways.get(i).admin().resolve("/metrics"));
    }

    /** Gateway {@code i}'s resident set in KiB ({@code /proc/<pid>/status} VmRSS), -1 when unreadable. */
    public long rssKib(int i) {
        return BenchScrapes.rssKib(pid(i));
    }

    /**
     * Gateway {@code i}'s heap in use right after a full collection, in KiB: {@code jcmd GC.run} then
     * {@code GC.heap_info}, the generations' {@code used} summed (metaspace left out); -1 when jcmd fails.
     */
    public long heapAfterGcKib(int i) throws IOException, InterruptedException {
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        String pid = Long.toString(pid(i));
        if (run(jcmd, pid, "GC.run") == null) {
            return -1;
        }
        String info = run(jcmd, pid, "GC.heap_info");
        return info == null ? -1 : heapUsedKib(info);
    }

    /** The heap in use of a {@code GC.heap_info} text in KiB (pure, for tests). */
    static long heapUsedKib(String heapInfo) {
        long used = 0;
        Matcher m = HEAP_USED.matcher(heapInfo);
        while (m.find()) {
            used += Long.parseLong(m.group(1));
        }
        return used;
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            return null;
        }
        return out;
    }

    /** Waits until every live gateway reports its Redis store available ({@code cachegate_cache_store_available}). */
    public void awaitStores(Duration atMost) throws InterruptedException {
        long deadline = System.nanoTime() + atMost.toNanos();
        for (int i = 0; i < gateways.size(); i++) {
            while (alive(i) && !storeAvailable(i)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(gateways.get(i).name() + " did not report its store available within "
                            + atMost + "; logs in " + children.log("*"));
                }
                Thread.sleep(100);
            }
        }
    }

    private boolean storeAvailable(int i) {
        try {
            return BenchScrapes.metric(metrics(i), "cachegate_cache_store_available") == 1;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Where the children's logs are, e.g. for a failure message. */
    public String logs() {
        return children.log("*").toString();
    }

    @Override
    public void close() {
        try {
            children.close();
        } finally {
            redis.close();
        }
    }
}
