package io.cachegate.gateway;

import io.cachegate.testing.RedisTestServer;
import static io.cachegate.gateway.CacheCalls.CHAT;
import static io.cachegate.gateway.CacheCalls.chat;
import static io.cachegate.gateway.CacheCalls.header;
import static io.cachegate.gateway.CacheCalls.metric;
import static io.cachegate.gateway.CacheCalls.nonce;
import static io.cachegate.gateway.CacheCalls.purge;
import static io.cachegate.gateway.CacheCalls.streamedContent;
import static io.cachegate.gateway.CacheCalls.xCache;
import static io.cachegate.gateway.RedisGateways.post;
import static io.cachegate.gateway.RedisGateways.storeAvailable;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.testkit.Poll;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The exact cache on a real redis-server (see {@link RedisTestServer}), alone and tiered behind an
 * L1. The shared Redis is never flushed: every gateway here uses tenants and model pins of its own.
 */
class RedisExactCacheIT {

    private static BackendSimulator sim;
    private static String redis;
    /** This run's tenants (random ids, so runs and other users of the shared Redis never meet) and pin. */
    private static final String T1 = "t" + nonce();
    private static final String T2 = "t" + nonce();
    private static final String PIN = "m" + nonce();

    @BeforeAll
    static void start() {
        sim = BackendSimulator.start(SimulatorOptions.defaults());
        redis = RedisTestServer.sharedUri();
    }

    @AfterAll
    static void stop() {
        if (sim != null) {
            sim.close();
        }
    }

    /** Tenants T1 (key k1) and T2 (key k2); {@code pin} may be null to discover the version from /v1/models. */
    static String policy(URI backend, String store, String redisUri, String pin) {
        return """
                server: {port: 0, admin_port: 0, host: 127.0.0.1, io_threads: 2, shutdown_grace: 2s}
                backends:
                  - name: main
                    urls: ["%s"]
                    %s
                    timeouts: {connect: 1s, first_byte: 5s, idle: 5s, total: 30s}
                tenants:
                  - {id: %s, api_keys: [k1]}
                  - {id: %s, api_keys: [k2]}
                cache:
                  exact: {store: %s, redis_uri: "%s", ttl: 10m, timeout: 100ms}
                """.formatted(backend, pin == null ? "" : "model_version: \"" + pin + "\"", T1, T2, store, redisUri);
    }

    private static Gateway gateway(String store, String redisUri, String pin) throws Exception {
        Gateway gw = Gateway.start(TestPolicies.parse(policy(sim.baseUrl(), store, redisUri, pin)));
        // The store connects in the background; until then requests bypass it.
        assertThat(Poll.until(Duration.ofSeconds(10), () -> storeAvailable(gw))).as("redis connected").isTrue();
        return gw;
    }

    @Test
    void secondIdenticalRequest_isHitFromRedis_entryHasTtl() throws Exception {
        try (Gateway gw = gateway("redis", redis, PIN)) {
            String body = chat("redis hit " + nonce());
            long before = sim.stats().requests();
            HttpResponse<String> first = post(gw, "k1", body);
            assertThat(xCache(first)).isEqualTo("MISS");
            // The write is asynchronous: it lands within moments of the answer.
            assertThat(Poll.untilChecked(Duration.ofSeconds(5), () -> xCache(post(gw, "k1", body)).equals("HIT")))
                    .isTrue();
            HttpResponse<String> hit = post(gw, "k1", body);
            assertThat(hit.body()).isEqualTo(first.body());
            assertThat(header(hit, "X-Cache-Origin-Request-Id")).isEqualTo(header(first, "X-Request-Id"));
            assertThat(sim.stats().requests() - before).isEqualTo(1);
            assertThat(xCache(post(gw, "k2", body))).as("another tenant").isEqualTo("MISS");

            String keys = RedisTestServer.command(redis, "EVAL",
                    "local k = redis.call('SCAN', 0, 'MATCH', ARGV[1], 'COUNT', 100000)[2]; "
                            + "if #k == 0 then return -3 end; return redis.call('PTTL', k[1])",
                    "0", "cg:v1:{" + T1 + "}:" + PIN + ":*");
            long pttl = Long.parseLong(keys.substring(1));
            assertThat(pttl).as("every entry expires").isBetween(1L, Duration.ofMinutes(10).toMillis());
        }
    }

    @Test
    void modelVersionPinChanges_betweenGatewaysOnSameRedis_miss() throws Exception {
        String pinB = "m" + nonce();
        try (Gateway a = gateway("redis", redis, PIN);
             Gateway b = gateway("redis", redis, pinB);
             Gateway c = gateway("redis", redis, PIN)) {
            String body = chat("pinned " + nonce());
            post(a, "k1", body);
            assertThat(Poll.untilChecked(Duration.ofSeconds(5), () -> xCache(post(c, "k1", body)).equals("HIT")))
                    .as("another gateway with the same pin shares the entry").isTrue();
            assertThat(xCache(post(b, "k1", body))).as("a gateway whose backend has another model version")
                    .isEqualTo("MISS");
        }
    }

    @Test
    void discoveredModelVersion_cachesOnceKnown() throws Exception {
        try (Gateway gw = gateway("redis", redis, null)) {
            String body = chat("discovered " + nonce());
            assertThat(Poll.untilChecked(Duration.ofSeconds(10), () -> !xCache(post(gw, "k1", body)).equals("BYPASS")))
                    .as("the version was read from GET /v1/models").isTrue();
            assertThat(Poll.untilChecked(Duration.ofSeconds(5), () -> xCache(post(gw, "k1", body)).equals("HIT")))
                    .isTrue();
            String stats = RawHttp.get(gw.adminPort(), "/admin/stats").body();
            assertThat(stats).contains("\"modelVersions\"").contains("llama-3.1-8b@");
        }
    }

    @Test
    void purge_reachesRedis_seenByOtherGatewaysAtOnce() throws Exception {
        String pin = "m" + nonce();
        String n = nonce();
        try (Gateway a = gateway("redis", redis, pin);
             Gateway b = gateway("redis", redis, pin)) {
            String one = chat("purge one " + n);
            String two = chat("purge two " + n);
            post(a, "k1", one, "X-Cache-Tags", "doc:" + n);
            post(a, "k1", two);
            post(a, "k2", one);
            for (String[] call : new String[][] {{"k1", one}, {"k1", two}, {"k2", one}}) {
                assertThat(Poll.untilChecked(Duration.ofSeconds(5), () ->
                        xCache(post(b, call[0], call[1])).equals("HIT")))
                        .isTrue();
            }

            assertThat(purge(a, "{\"tag\":\"doc:" + n + "\"}")).isEqualTo(1);
            assertThat(xCache(post(b, "k1", one))).isEqualTo("MISS");
            assertThat(xCache(post(b, "k1", two))).isEqualTo("HIT");

            assertThat(purge(a, "{\"tenant\":\"" + T2 + "\",\"model_version\":\"" + pin + "\"}")).isEqualTo(1);
            assertThat(xCache(post(b, "k2", one))).isEqualTo("MISS");
            assertThat(xCache(post(b, "k1", two))).isEqualTo("HIT");

            assertThat(Poll.untilChecked(Duration.ofSeconds(5), () ->
                    purge(a, "{\"model_version\":\"" + pin + "\"}") >= 0
                    && xCache(post(b, "k1", two)).equals("MISS"))).isTrue();
        }
    }

    @Test
    void tiered_hitsFromL1AndRedis_purgeClearsBoth() throws Exception {
        String pin = "m" + nonce();
        try (Gateway tiered = gateway("tiered", redis, pin);
             Gateway plain = gateway("redis", redis, pin)) {
            String body = chat("tiered " + nonce(), "\"stream\":true");
            HttpResponse<String> miss = post(tiered, "k1", body, "X-Cache-Tags", "tiered:" + pin);
            assertThat(xCache(miss)).isEqualTo("MISS");
            // Write-back is asynchronous: until the Redis write settles, a repeat follows the finished
            // flight (X-Cache: MISS, coalesced) instead of reading the store.
            AtomicReference<HttpResponse<String>> hitHolder = new AtomicReference<>();
            assertThat(Poll.until(Duration.ofSeconds(5), () -> {
                try {
                    hitHolder.set(post(tiered, "k1", body));
                    return xCache(hitHolder.get()).equals("HIT");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            })).as("a repeat is served from the tiered store").isTrue();
            HttpResponse<String> hit = hitHolder.get();
            assertThat(streamedContent(hit.body())).isEqualTo(streamedContent(miss.body()));
            assertThat(Poll.untilChecked(Duration.ofSeconds(5), () -> xCache(post(plain, "k1", body)).equals("HIT")))
                    .as("and written through to Redis").isTrue();

            assertThat(purge(tiered, "{\"tag\":\"tiered:" + pin + "\"}")).isEqualTo(1);
            assertThat(xCache(post(tiered, "k1", body))).as("the L1 copy went too").isEqualTo("MISS");
        }
    }

    @Test
    void redisStoppedMidTest_requestsStillSucceed_thenRecoverWithoutRestart() throws Exception {
        try (RedisTestServer server = RedisTestServer.startPrivate();
             Gateway gw = gateway("redis", server.uri(), PIN)) {
            String body = chat("outage " + nonce());
            post(gw, "k1", body);
            assertThat(Poll.until(Duration.ofSeconds(5), () -> hit(gw, body))).isTrue();

            server.stop();
            for (int i = 0; i < 20; i++) {
                HttpResponse<String> during = post(gw, "k1", i % 2 == 0 ? body : chat("outage other " + i), i % 3 == 0
                        ? new String[] {"X-Cache-Tags", "x"} : new String[0]);
                assertThat(during.statusCode()).isEqualTo(200);
                assertThat(xCache(during)).as("request %d during the outage: a miss no cache answers", i)
                        .isEqualTo("MISS");
            }
            HttpResponse<String> streamed = post(gw, "k1", chat("outage stream " + nonce(), "\"stream\":true"));
            assertThat(xCache(streamed)).isEqualTo("MISS");
            assertThat(streamed.body()).endsWith("data: [DONE]\n\n");
            assertThat(metric(gw, "cachegate_cache_lookups_total", "outcome=\"error\"")).isPositive();
            assertThat(Poll.until(Duration.ofSeconds(5), () -> !storeAvailable(gw))).isTrue();
            HttpResponse<String> purge = RawHttp.post(gw.adminPort(), "/admin/purge", "{\"all\":true}");
            assertThat(purge.statusCode()).as("a purge says it could not reach the store").isEqualTo(503);

            server.start();
            assertThat(Poll.until(Duration.ofSeconds(15), () -> hit(gw, body)))
                    .as("caching resumed without restarting the gateway").isTrue();
            assertThat(storeAvailable(gw)).isTrue();
            assertThat(purge(gw, "{\"all\":true}")).isPositive();
            // 21 failed lookups of 23 in the window: the store was degraded (failed fast), then probed back in.
            assertThat(metric(gw, "cachegate_cache_store_state_changes_total", "to=\"degraded\"")).isPositive();
            assertThat(metric(gw, "cachegate_cache_store_state_changes_total", "to=\"probing\"")).isPositive();
            assertThat(metric(gw, "cachegate_cache_store_state", "state=\"healthy\"")).isEqualTo(1);
            assertThat(metric(gw, "cachegate_cache_store_state", "state=\"degraded\"")).isZero();
            assertThat(metric(gw, "cachegate_cache_store_command_timeout_seconds"))
                    .as("at least cache.exact.timeout, at most health.timeout_max").isBetween(0.1, 1.0);
        }
    }

    private static boolean hit(Gateway gw, String body) {
        try {
            return xCache(post(gw, "k1", body)).equals("HIT");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
