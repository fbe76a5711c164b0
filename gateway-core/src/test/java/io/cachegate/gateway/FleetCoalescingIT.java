package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.chat;
import static io.cachegate.gateway.CacheCalls.content;
import static io.cachegate.gateway.CacheCalls.header;
import static io.cachegate.gateway.CacheCalls.metric;
import static io.cachegate.gateway.CacheCalls.nonce;
import static io.cachegate.gateway.CacheCalls.streamedContent;
import static io.cachegate.gateway.CacheCalls.xCache;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.testing.RedisTestServer;
import io.cachegate.testkit.Poll;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Coalescing across gateways: three gateways in this JVM over the real Redis, in front of one slow simulator (time
 * to first token 700 ms) so the first request is still generating when the others arrive at every gateway.
 */
class FleetCoalescingIT {

    private static final int CONCURRENT = 100;
    private static final Duration MAX_WAIT = Duration.ofSeconds(4);
    private static final String TENANT = "t" + nonce();
    private static BackendSimulator sim;
    private static String redis;
    private static ExecutorService executor;
    private static HttpClient client;
    private final List<Gateway> gateways = new ArrayList<>();

    @BeforeAll
    static void start() {
        sim = BackendSimulator.start(SimulatorOptions.defaults().withTtftMs(700).withTpotMs(4).withDefaultMaxTokens(64));
        redis = RedisTestServer.sharedUri();
        executor = Executors.newFixedThreadPool(16);
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(executor)
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterAll
    static void stop() throws Exception {
        Closing.all(sim);
        if (executor != null) {
            executor.shutdownNow();
        }
    }

    @AfterEach
    void closeGateways() {
        gateways.forEach(Gateway::close);
    }

    /** Three gateways over one Redis; {@code coalesce} switches cache.fleet.coalesce. */
    private List<Gateway> fleet(int n, boolean coalesce) throws Exception {
        return fleet(n, coalesce, sim);
    }

    private List<Gateway> fleet(int n, boolean coalesce, BackendSimulator backend) throws Exception {
        // The store's timeout is a second, not the usual 200ms: on a busy CI machine a cold JVM's first Redis calls
        // were slow enough for a store to declare itself degraded and bypass Redis, leases and all (a second call).
        String policy = """
                backends:
                  - name: main
                    model_version: "fleet-%s"
                    timeouts: {connect: 1s, first_byte: 5s, idle: 5s, total: 30s}
                tenants:
                  - {id: %s, api_keys: [fleet-key]}
                cache:
                  exact: {store: redis, redis_uri: "%s", ttl: 10m, timeout: 1s}
                  fleet: {coalesce: %s, max_wait: %ds}
                """.formatted(TENANT, TENANT, redis, coalesce, MAX_WAIT.toSeconds());
        for (int i = 0; i < n; i++) {
            Gateway gw = Gateway.start(GatewayFixture.policyOn(backend.baseUrl(), policy));
            gateways.add(gw);
            assertThat(Poll.until(Duration.ofSeconds(10), () -> ready(gw))).as("redis connected").isTrue();
        }
        return List.copyOf(gateways);
    }

    private static boolean ready(Gateway gw) {
        try {
            return metric(gw, "cachegate_cache_store_available") == 1;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static CompletableFuture<HttpResponse<String>> send(Gateway gw, String body) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gw.port() + CHAT))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer fleet-key")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        return client.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }

    /** {@code count} identical requests, round-robin over {@code fleet}, all sent before any answer. */
    private static List<HttpResponse<String>> sendAll(List<Gateway> fleet, String body, int count) {
        List<CompletableFuture<HttpResponse<String>>> futures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            futures.add(send(fleet.get(i % fleet.size()), body));
        }
        return futures.stream().map(CompletableFuture::join).toList();
    }

    @Test
    void concurrentIdenticalColdRequests_acrossThreeGateways_oneBackendCall() throws Exception {
        List<Gateway> fleet = fleet(3, true);
        String body = chat("fleet coalesce " + nonce());
        long before = sim.stats().requests();

        List<HttpResponse<String>> responses = sendAll(fleet, body, CONCURRENT);

        assertThat(sim.stats().requests() - before).as("backend calls").isEqualTo(1);
        String expected = content(responses.get(0).body());
        assertThat(expected).isNotBlank();
        for (HttpResponse<String> r : responses) {
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(content(r.body())).isEqualTo(expected);
        }
        List<HttpResponse<String>> fleetHits = responses.stream()
                .filter(r -> "fleet".equals(r.headers().firstValue("X-Cache-Coalesced").orElse(null))).toList();
        assertThat(fleetHits).as("requests at the other gateways waited for the entry").isNotEmpty();
        for (HttpResponse<String> r : fleetHits) {
            assertThat(xCache(r)).isEqualTo("HIT");
            assertThat(header(r, "X-Cache-Layer")).isEqualTo("exact");
        }
        double hits = 0;
        for (Gateway gw : fleet) {
            hits += metric(gw, "cachegate_cache_coalesced_fleet_total", "outcome=\"hit\"");
        }
        assertThat(hits).isEqualTo(fleetHits.size());
    }

    @Test
    void concurrentIdenticalColdStreams_acrossThreeGateways_oneBackendCall_waitersReplayTheStoredEntry()
            throws Exception {
        List<Gateway> fleet = fleet(3, true);
        String body = chat("fleet stream " + nonce(), "\"stream\":true");
        long before = sim.stats().requests();

        List<HttpResponse<String>> responses = sendAll(fleet, body, 30);

        assertThat(sim.stats().requests() - before).as("backend calls").isEqualTo(1);
        String expected = streamedContent(responses.get(0).body());
        assertThat(expected).isNotBlank();
        for (HttpResponse<String> r : responses) {
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(streamedContent(r.body())).isEqualTo(expected);
        }
    }

    @Test
    void withoutFleetCoalescing_eachGatewayCallsOnce() throws Exception {
        List<Gateway> fleet = fleet(3, false);
        String body = chat("fleet off " + nonce());
        long before = sim.stats().requests();

        List<HttpResponse<String>> responses = sendAll(fleet, body, 30);

        assertThat(sim.stats().requests() - before).as("one call per gateway (coalesced in process only)")
                .isEqualTo(3);
        assertThat(responses).allSatisfy(r -> assertThat(r.statusCode()).isEqualTo(200));
    }

    @Test
    void leadingGatewayStoppedMidCall_othersRecoverWithinTheirWaitBound() throws Exception {
        // A backend slow enough (2.5 s to the first token) that the leader is surely stopped mid-call.
        try (BackendSimulator slow = BackendSimulator.start(SimulatorOptions.defaults().withTtftMs(2500)
                .withDefaultMaxTokens(16))) {
            List<Gateway> fleet = fleet(3, true, slow);
            Gateway leader = fleet.get(0);
            String body = chat("fleet leader dies " + nonce());
            CompletableFuture<HttpResponse<String>> lead = send(leader, body);
            assertThat(Poll.until(Duration.ofSeconds(5), () -> slow.stats().requests() == 1))
                    .as("the leader's call reached the backend").isTrue();
            List<CompletableFuture<HttpResponse<String>>> waiting = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                waiting.add(send(fleet.get(1 + i % 2), body));
            }
            assertThat(Poll.until(Duration.ofSeconds(5), () -> waiters(fleet.get(1)) + waiters(fleet.get(2)) >= 2))
                    .as("the other gateways wait for the leader").isTrue();
            long stoppedAt = System.nanoTime();

            leader.shutdown(Duration.ZERO);

            assertThat(lead.handle((r, e) -> e != null || r.statusCode() != 200).join())
                    .as("the leader's client was cut off mid-call").isTrue();
            List<HttpResponse<String>> answers = waiting.stream().map(CompletableFuture::join).toList();
            Duration recovered = Duration.ofNanos(System.nanoTime() - stoppedAt);
            System.out.println("fleet: waiters recovered " + recovered.toMillis() + " ms after the leader stopped, "
                    + slow.stats().requests() + " backend calls in all");
            assertThat(answers).allSatisfy(r -> assertThat(r.statusCode()).as(r.body()).isEqualTo(200));
            assertThat(answers.stream().map(r -> content(r.body())).distinct()).hasSize(1);
            // Within the wait bound, plus one generation (2.5 s here) by whichever gateway leads next.
            assertThat(recovered).isLessThan(MAX_WAIT.plusMillis(2500).plusSeconds(2));
            assertThat(slow.stats().requests()).as("the leader's call, then one call by a waiter that took over"
                    + " (the failure word), or one per waiting gateway (the wait bound)").isBetween(2L, 3L);
        }
    }

    private static double waiters(Gateway gw) {
        try {
            return metric(gw, "cachegate_cache_coalesce_fleet_waiting");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
