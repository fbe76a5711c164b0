package io.cachegate.benchmarks;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code bench overload --scenario outage}: a backend outage at steady load. Starts a simulator and a gateway with
 * {@code stale_if_error}, fills the cache with entries whose TTL ends half way through the outage, then sends an open
 * loop of requests (half repeats of those entries, half new prompts) while the simulator process is SIGKILLed and,
 * {@code outage} later, started again on its port; reads how many calls the new simulator got ({@link OutageReport}).
 */
final class OutageScenario {

    private final SimulatorOptions simulator;
    private final Progress progress;
    private final int gatewayThreads;
    private final double rate;
    private final int entries;
    private final Duration lead;
    private final Duration outage;
    private final Duration recovery;
    private final Duration timeout;

    OutageScenario(SimulatorOptions simulator, Progress progress, int gatewayThreads, double rate, int entries,
                   Duration lead, Duration outage, Duration recovery, Duration timeout) {
        this.simulator = simulator;
        this.progress = progress;
        this.gatewayThreads = gatewayThreads;
        this.rate = rate;
        this.entries = entries;
        this.lead = lead;
        this.outage = outage;
        this.recovery = recovery;
        this.timeout = timeout;
    }

    /** The entries' TTL: they expire half way through the outage (counted from when they are written, before it). */
    static long ttlSeconds(Duration lead, Duration outage) {
        return Math.max(1, (lead.toMillis() + outage.toMillis() / 2 + 999) / 1000);
    }

    /** The stale window: from the entries' expiry past the end of the run, with room to spare. */
    static long staleIfErrorSeconds(Duration outage, Duration recovery) {
        return (outage.toMillis() + recovery.toMillis()) / 1000 + 60;
    }

    OutageReport run(BenchChildren children) throws Exception {
        List<String> simArgs = new ArrayList<>(simulator.args());
        // Answers of 16 tokens (no max_tokens is sent, so they end with stop and are stored): 250 ms each at the
        // default latency model, so the new prompts stay well under the simulator's capacity outside the outage.
        simArgs.addAll(List.of("--max-queue", "100000", "--models", ChatRequests.MODEL, "--default-max-tokens", "16"));
        ChildSimulator sim = children.simulator("sim", 1, simArgs.toArray(String[]::new));
        long ttl = ttlSeconds(lead, outage);
        long window = staleIfErrorSeconds(outage, recovery);
        ChildGateway gw = children.gateway("outage", List.of(), GatewayPolicy.of(gatewayThreads, sim)
                .pinModelVersion().connectionsPerUrl(1024)
                // Admission is on (the default): with the simulator's own limit it needs no time to find one.
                .backend("max_concurrency: " + simulator.maxConcurrency())
                // Probed often and let back soon: the measure is the gateway's answers, not how long ejection lasts.
                .backend("health: { interval: 250ms, failures_to_eject: 3, eject_for: 500ms }")
                .section("""
                        cache:
                          exact: { store: memory, stale_if_error: %ds }
                        """.formatted(window))
                .route("*", "cache: { ttl: " + ttl + "s }"));
        sim.awaitReady();
        gw.awaitReady();
        HttpClient http = BenchScrapes.client();
        String runId = UUID.randomUUID().toString();
        List<byte[]> bodies = new ArrayList<>();
        for (int i = 0; i < entries; i++) {
            bodies.add(OutageLoad.body("cached entry " + i + " of " + runId));
        }
        progress.info("simulator %s, gateway %s: writing %d entries (ttl %d s, stale_if_error %d s)", sim.uri(),
                gw.uri(), entries, ttl, window);
        fill(http, gw.uri(), bodies);
        awaitWritten(http, gw.admin());

        OutageLoad load = new OutageLoad(http, gw.uri(), bodies, runId, timeout);
        // The recovery is counted from when the simulator accepts connections again: its JVM takes seconds to start.
        AtomicLong end = new AtomicLong(Long.MAX_VALUE);
        load.start();
        long startNanos = System.nanoTime();
        Thread sender = new Thread(() -> load.run(rate, end::get), "outage-load");
        sender.start();
        Thread.sleep(lead.toMillis());
        int from = load.second(System.nanoTime());
        children.kill(sim.process());
        progress.info("simulator killed (second %d); back in %s", from, outage);
        Thread.sleep(outage.toMillis());
        long restart = System.nanoTime();
        ChildSimulator back = new ChildSimulator(children.start("sim-restarted", simArgs(sim.port(), simArgs)),
                sim.port(), 1).awaitReady();
        long backNanos = System.nanoTime();
        int to = load.second(backNanos);
        end.set(backNanos + recovery.toNanos());
        progress.info("simulator back (second %d)", to);
        sender.join();
        List<OutageLoad.Outcome> outcomes = load.outcomes();
        long calls = BenchScrapes.simStats(http, back.uri()).requests();
        int seconds = (int) Math.ceil((backNanos + recovery.toNanos() - startNanos) / 1e9);
        return new OutageReport(outcomes, seconds, from, to, restart, calls, entries, rate, ttl, window);
    }

    /** Entries reach the store after their answer: waits (up to 10 s) until every one is written. */
    private void awaitWritten(HttpClient http, URI admin) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!(BenchScrapes.metric(BenchScrapes.get(http, admin.resolve("/metrics")),
                "cachegate_cache_entries_written_total") >= entries)) { // NaN until the first write
            if (System.nanoTime() > deadline) {
                throw new Scenario.Aborted("the gateway did not write the " + entries + " entries within 10 s");
            }
            Thread.sleep(50);
        }
    }

    private static String[] simArgs(int port, List<String> options) {
        List<String> args = new ArrayList<>(List.of("simulate-backend", "--port", Integer.toString(port)));
        args.addAll(options);
        return args.toArray(String[]::new);
    }

    /**
     * Writes every entry, as many at once as the simulator takes (more would wait in the admission queue), and fails
     * unless each was generated and answered.
     */
    private void fill(HttpClient http, URI gateway, List<byte[]> bodies) throws Scenario.Aborted {
        int wave = Math.max(1, simulator.maxConcurrency());
        for (int from = 0; from < bodies.size(); from += wave) {
            List<CompletableFuture<HttpResponse<Void>>> sent = new ArrayList<>();
            for (byte[] body : bodies.subList(from, Math.min(bodies.size(), from + wave))) {
                sent.add(http.sendAsync(HttpRequest.newBuilder(gateway.resolve(ChatRequests.PATH)).timeout(timeout)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                        HttpResponse.BodyHandlers.discarding()));
            }
            for (CompletableFuture<HttpResponse<Void>> f : sent) {
                HttpResponse<Void> r = f.join();
                if (r.statusCode() != 200) {
                    throw new Scenario.Aborted("writing the cached entries: the gateway answered " + r.statusCode());
                }
            }
        }
    }
}
