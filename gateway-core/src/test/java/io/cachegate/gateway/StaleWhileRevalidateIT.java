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
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code stale_while_revalidate} against the simulator: after an entry's TTL, requests spread over the time its refresh
 * takes are all answered at once {@code X-Cache: STALE} while the simulator sees exactly one call, and the entry is then
 * fresh ({@code X-Cache: HIT}). On the memory store, on Redis, and with two gateways on one Redis (the fleet's flight
 * leases make the second gateway's refresh wait for the first's answer).
 */
class StaleWhileRevalidateIT {

    /** ttl 2s, stale_while_revalidate 60s: every request in this test after the TTL is within the window. */
    private static final long TTL_MILLIS = 2_000;
    /** The simulator's time to first token: a refresh is in flight this long while the requests arrive. */
    private static final long TTFT_MILLIS = 2_500;
    private static final int SPREAD = 10;

    private static String policy(String store, String tenant) {
        // A 1 s Redis timeout, not the default 50 ms (as StaleIfErrorIT: a loaded machine timed writes out at 50 ms).
        String redis = store.equals("memory") ? ""
                : ", redis_uri: \"" + RedisTestServer.sharedUri() + "\", timeout: 1s";
        return """
                backends:
                  - name: main
                    urls: ["${SIM}"]
                    model_version: "llama@swr-%s"
                    timeouts: {connect: 500ms, first_byte: 10s, idle: 10s, total: 30s}
                tenants:
                  - {id: %s, api_keys: [%s-key]}
                cache:
                  exact: {store: %s%s, ttl: 1h, stale_while_revalidate: 60s}
                routes:
                  - match: {model: "*"}
                    cache: {ttl: 2s}
                """.formatted(tenant, tenant, tenant, store, redis);
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "redis"})
    void expiredEntry_requestsSpreadOverTheRefresh_allStaleAtOnce_oneBackendCall_thenHit(String store)
            throws Exception {
        String tenant = "swr" + nonce().replace("-", "");
        String key = tenant + "-key";
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults().withTtftMs(TTFT_MILLIS));
             Gateway gw = Gateway.start(GatewayFixture.policyOn(sim.baseUrl(), policy(store, tenant)))) {
            if (!store.equals("memory")) {
                assertThat(Poll.until(Duration.ofSeconds(15), () -> RedisGateways.storeAvailable(gw)))
                        .as("redis connected").isTrue();
            }
            String body = chat("refreshed in the background " + nonce());
            HttpResponse<String> original = call(gw, key, body);
            assertThat(xCache(original)).isEqualTo("MISS");
            assertThat(Poll.untilChecked(Duration.ofSeconds(5),
                    () -> metric(gw, "cachegate_cache_entries_written_total") >= 1)).isTrue();
            Thread.sleep(TTL_MILLIS + 300);
            long before = sim.stats().requests();

            List<HttpResponse<String>> answers = spread(List.of(gw), key, body);
            HttpResponse<String> streamed = RawHttp.post(gw.port(), CHAT,
                    body.replace("\"temperature\":0", "\"temperature\":0,\"stream\":true"), "Authorization",
                    "Bearer " + key);

            for (HttpResponse<String> r : answers) {
                assertStale(r, content(original.body()));
            }
            assertThat(streamed.statusCode()).as(streamed.body()).isEqualTo(200);
            assertThat(xCache(streamed)).isEqualTo("STALE");
            assertThat(streamedContent(streamed.body())).isEqualTo(content(original.body()));

            assertThat(Poll.untilChecked(Duration.ofSeconds(15), () -> xCache(call(gw, key, body)).equals("HIT")))
                    .as("the refreshed answer replaced the entry").isTrue();
            HttpResponse<String> fresh = call(gw, key, body);
            assertThat(xCache(fresh)).isEqualTo("HIT");
            assertThat(Long.parseLong(header(fresh, "Age"))).as("a new answer").isLessThan(2);
            assertThat(sim.stats().requests() - before).as(SPREAD + 1 + " stale answers, one refresh").isEqualTo(1);
            assertThat(metric(gw, "cachegate_cache_revalidations_total", "outcome=\"refreshed\"")).isEqualTo(1);
            assertThat(metric(gw, "cachegate_cache_stale_total", "reason=\"revalidating\""))
                    .as("the spread requests, the stream, and the polls while the refresh ran")
                    .isGreaterThanOrEqualTo(SPREAD + 1);
        }
    }

    @Test
    void twoGatewaysOnOneRedis_expiredEntry_oneRefreshCallBetweenThem() throws Exception {
        String tenant = "swr" + nonce().replace("-", "");
        String key = tenant + "-key";
        try (BackendSimulator sim = BackendSimulator.start(SimulatorOptions.defaults().withTtftMs(TTFT_MILLIS));
             Gateway a = Gateway.start(GatewayFixture.policyOn(sim.baseUrl(), policy("redis", tenant)));
             Gateway b = Gateway.start(GatewayFixture.policyOn(sim.baseUrl(), policy("redis", tenant)))) {
            for (Gateway gw : List.of(a, b)) {
                assertThat(Poll.until(Duration.ofSeconds(15), () -> RedisGateways.storeAvailable(gw)))
                        .as("redis connected").isTrue();
            }
            String body = chat("refreshed once for the fleet " + nonce());
            HttpResponse<String> original = call(a, key, body);
            assertThat(xCache(original)).isEqualTo("MISS");
            assertThat(Poll.untilChecked(Duration.ofSeconds(5), () -> xCache(call(b, key, body)).equals("HIT")))
                    .isTrue();
            Thread.sleep(TTL_MILLIS + 300);
            long before = sim.stats().requests();

            for (HttpResponse<String> r : spread(List.of(a, b), key, body)) {
                assertStale(r, content(original.body()));
            }

            for (Gateway gw : List.of(a, b)) {
                assertThat(Poll.untilChecked(Duration.ofSeconds(15),
                        () -> xCache(call(gw, key, body)).equals("HIT"))).isTrue();
            }
            assertThat(sim.stats().requests() - before).as("one refresh call for both gateways; fleet outcomes %s",
                    fleetOutcomes(a, b)).isEqualTo(1);
            double refreshed = metric(a, "cachegate_cache_revalidations_total", "outcome=\"refreshed\"")
                    + metric(b, "cachegate_cache_revalidations_total", "outcome=\"refreshed\"");
            double shared = metric(a, "cachegate_cache_revalidations_total", "outcome=\"shared\"")
                    + metric(b, "cachegate_cache_revalidations_total", "outcome=\"shared\"");
            assertThat(refreshed).isEqualTo(1);
            assertThat(shared).as("the other gateway's refresh waited for the lease holder's answer").isEqualTo(1);
        }
    }

    /** {@link #SPREAD} requests, one every 150 ms, round robin over {@code gateways}: within one refresh's time. */
    private static List<HttpResponse<String>> spread(List<Gateway> gateways, String key, String body)
            throws InterruptedException {
        List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
        for (int i = 0; i < SPREAD; i++) {
            Gateway gw = gateways.get(i % gateways.size());
            sent.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return call(gw, key, body);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
            Thread.sleep(150);
        }
        return sent.stream().map(CompletableFuture::join).toList();
    }

    /** What fleet coalescing did at each gateway, to tell a lease lost under load from a second leader. */
    private static String fleetOutcomes(Gateway... gateways) throws Exception {
        StringBuilder out = new StringBuilder();
        for (Gateway gw : gateways) {
            out.append('[');
            for (String outcome : List.of("led", "joined", "hit", "takeover", "unavailable", "timeout", "miss")) {
                out.append(outcome).append('=').append(metric(gw, "cachegate_cache_coalesced_fleet_total",
                        "outcome=\"" + outcome + "\"")).append(' ');
            }
            out.append("refreshes=").append(metric(gw, "cachegate_cache_revalidations_total")).append(']');
        }
        return out.toString();
    }

    private static void assertStale(HttpResponse<String> r, String content) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(xCache(r)).as("answered without waiting for the refresh").isEqualTo("STALE");
        assertThat(header(r, "X-Cache-Layer")).isEqualTo("exact");
        assertThat(header(r, "X-Cache-Stale")).matches("while-revalidate; reason=revalidating; past-ttl=[0-9]+");
        assertThat(Long.parseLong(header(r, "Age"))).isGreaterThanOrEqualTo(2);
        assertThat(content(r.body())).isEqualTo(content);
    }

    private static HttpResponse<String> call(Gateway gw, String key, String body, String... headers)
            throws Exception {
        String[] all = new String[headers.length + 2];
        all[0] = "Authorization";
        all[1] = "Bearer " + key;
        System.arraycopy(headers, 0, all, 2, headers.length);
        return RawHttp.post(gw.port(), CHAT, body, all);
    }
}
