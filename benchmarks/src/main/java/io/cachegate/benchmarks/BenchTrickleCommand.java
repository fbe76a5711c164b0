package io.cachegate.benchmarks;

import io.cachegate.config.ByteSizes;
import io.cachegate.config.Durations;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cachegate bench trickle}: the memory keyed clients can pin with partial request bodies (issue 28). Starts a
 * simulator and a gateway as processes, opens {@code --clients} connections whose valid keys each declare a
 * {@code --body-bytes} body and send all of it but the last byte over {@code --hold}, while another tenant sends
 * ordinary requests; samples the gateway's resident set ({@code /proc/<pid>/status} VmRSS) before, through the
 * spike and after every trickling client closed.
 */
@Command(name = "trickle", mixinStandardHelpOptions = true,
        description = {
            "Keyed clients trickling large partial request bodies at a gateway process while another tenant is "
                    + "served: the gateway's RSS before, at its peak and --settle after the clients closed, and how "
                    + "the gateway answered each client (held, 429, 503).",
            "Exit status 1 when RSS grew by more than --max-growth, was not back within --max-after of its value "
                    + "before, or an ordinary request was not answered 200."
        })
final class BenchTrickleCommand extends Scenario {

    @Option(names = "--clients", defaultValue = "300", description = "Trickling clients (default ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--body-bytes", defaultValue = "3994KiB",
            description = "Declared body of each: 3994KiB is 3.9 MiB (default ${DEFAULT-VALUE}).")
    String bodyBytes;

    @Option(names = "--keys", defaultValue = "1",
            description = "Tenants the clients' keys belong to, round robin (default ${DEFAULT-VALUE}).")
    int keys;

    @Option(names = "--hold", defaultValue = "20s", description = "How long each body trickles (default ${DEFAULT-VALUE}).")
    String hold;

    @Option(names = "--settle", defaultValue = "15s",
            description = "Wait after the clients closed before RSS is read again (default ${DEFAULT-VALUE}).")
    String settle;

    @Option(names = "--gateway-policy", defaultValue = "",
            description = "More server: keys of the gateway, e.g. 'max_buffered_body_bytes: 1GiB' (default none).")
    String serverKeys;

    @Option(names = "--max-growth", defaultValue = "300MiB", description = "RSS growth allowed (default ${DEFAULT-VALUE}).")
    String maxGrowth;

    @Option(names = "--max-after", defaultValue = "0.2",
            description = "RSS after, above before, allowed as a share of before (default ${DEFAULT-VALUE}).")
    double maxAfter;

    /** What one run measured; RSS in KiB. */
    record Measured(int clients, int bodyBytes, int keys, long rssBeforeKib, long rssPeakKib, long rssAfterKib,
                    Map<Integer, Integer> trickleOutcomes, long peakBytesAsked, int ordinarySent, int ordinaryOk,
                    Map<Integer, Integer> ordinaryStatuses, double ordinaryP99Ms, long maxGrowthKib, double maxAfter) {
    }

    BenchTrickleCommand() {
        // The flags ./cachegate and the image's entrypoint run the gateway with, the heap otherwise the JVM's default.
        super("trickle", new ScenarioOptions("20s", "5s", 1,
                "-XX:G1PeriodicGCInterval=5000 -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30"));
    }

    @Override
    void check(List<String> problems) {
        if (clients < 1 || keys < 1 || keys > clients) {
            problems.add("--clients must be >= 1, --keys from 1 to --clients");
        }
        try {
            long body = ByteSizes.parse(bodyBytes);
            if (body < 2 || body > Integer.MAX_VALUE) {
                problems.add("--body-bytes must be from 2 bytes to 2GiB");
            }
            ByteSizes.parse(maxGrowth);
            Durations.parse(hold);
            Durations.parse(settle);
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
        }
    }

    @Override
    ScenarioReport measure(BenchChildren children) throws Exception {
        ChildSimulator sim = children.simulator("sim", 1, "--ttft-ms", "5", "--tpot-ms", "1").awaitReady();
        StringBuilder tenants = new StringBuilder("tenants:\n  - { id: other, api_keys: [k-other] }\n");
        List<String> trickleKeys = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            tenants.append("  - { id: t").append(k).append(", api_keys: [k-t").append(k).append("] }\n");
            trickleKeys.add("k-t" + k);
        }
        GatewayPolicy policy = GatewayPolicy.of(options.gatewayThreads(), sim).pinModelVersion().section(tenants.toString());
        if (!serverKeys.isBlank()) {
            policy.server(serverKeys);
        }
        ChildGateway gateway = children.gateway("gateway", List.of(), policy).awaitReady();
        long pid = gateway.process().pid();
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        progress.phase("warm-up " + options.warmup().toSeconds() + "s");
        long warmEnd = System.nanoTime() + options.warmup().toNanos();
        while (System.nanoTime() < warmEnd) {
            ordinary(http, gateway.uri());
        }
        Thread.sleep(2_000);
        long before = BenchScrapes.rssKib(pid);
        int body = (int) ByteSizes.parse(bodyBytes);
        progress.phase(clients + " clients trickling " + bodyBytes + " bodies over " + hold);
        Duration holdFor = Durations.parse(hold);
        List<Double> ordinaryMs = new ArrayList<>();
        Map<Integer, Integer> ordinaryStatuses = new TreeMap<>();
        AtomicBoolean trickling = new AtomicBoolean(true);
        Thread others = new Thread(() -> {
            while (trickling.get()) {
                long t = System.nanoTime();
                int status = ordinary(http, gateway.uri());
                synchronized (ordinaryStatuses) {
                    ordinaryStatuses.merge(status, 1, Integer::sum);
                    ordinaryMs.add((System.nanoTime() - t) / 1e6);
                }
                sleep(100);
            }
        }, "trickle-others");
        long peak = before;
        long peakAsked = 0;
        Map<Integer, Integer> outcomes;
        try (TrickleClients trickle = new TrickleClients(gateway.uri(), trickleKeys, clients, body)) {
            others.start();
            long start = System.nanoTime();
            double share;
            do {
                share = Math.min(1, (System.nanoTime() - start) / (double) holdFor.toNanos());
                trickle.step(share);
                peak = Math.max(peak, BenchScrapes.rssKib(pid));
                peakAsked = Math.max(peakAsked, trickle.bytesHeldAsked());
                sleep(200);
            } while (share < 1);
            outcomes = trickle.outcomes();
            trickling.set(false);
            others.join();
        }
        progress.phase("clients closed; settling " + settle);
        long settleEnd = System.nanoTime() + Durations.parse(settle).toNanos();
        while (System.nanoTime() < settleEnd) {
            peak = Math.max(peak, BenchScrapes.rssKib(pid));
            sleep(500);
        }
        long after = BenchScrapes.rssKib(pid);
        int ok = ordinaryStatuses.getOrDefault(200, 0);
        int sent = ordinaryStatuses.values().stream().mapToInt(Integer::intValue).sum();
        List<Double> sorted = ordinaryMs.stream().sorted().toList();
        return new TrickleReport(new Measured(clients, body, keys, before, peak, after, outcomes, peakAsked, sent, ok,
                ordinaryStatuses, BenchFleetCommand.percentile(sorted, 0.99), ByteSizes.parse(maxGrowth) / 1024,
                maxAfter));
    }

    /** One ordinary chat request of the other tenant: its status, -1 when it failed to complete. */
    private static int ordinary(HttpClient http, URI gateway) {
        String body = "{\"model\":\"" + ChatRequests.MODEL + "\",\"temperature\":0,\"messages\":[{\"role\":\"user\","
                + "\"content\":\"trickle " + System.nanoTime() + "\"}]}";
        try {
            return http.send(HttpRequest.newBuilder(gateway.resolve(ChatRequests.PATH))
                    .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                    .header("Authorization", "Bearer k-other")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return -1;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
