package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.chat;
import static io.cachegate.gateway.CacheCalls.header;
import static io.cachegate.gateway.CacheCalls.metric;
import static io.cachegate.gateway.CacheCalls.nonce;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.testing.RedisTestServer;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Limits shared through Redis when the exact store is there: two gateways on one Redis hold a tenant to one
 * bucket; with Redis unreachable a gateway fails open to its own bucket, and the tenant is still served.
 */
class SharedQuotaIT {

    private static BackendSimulator sim;

    @BeforeAll
    static void start() {
        sim = BackendSimulator.start(SimulatorOptions.defaults());
    }

    @AfterAll
    static void stop() {
        if (sim != null) {
            sim.close();
        }
    }

    /** Tenant {@code tenant} (key k-limited) with a burst of 4 at 1 per second, and tenant warm (key k-warm). */
    private static Gateway gateway(String redisUri, String tenant) throws Exception {
        return Gateway.start(GatewayFixture.policyOn(sim.baseUrl(), """
                backends:
                  - {name: main, model_version: "llama@1"}
                tenants:
                  - {id: %s, api_keys: [k-limited], limits: {requests_per_second: 1, burst: 4}}
                  - {id: warm, api_keys: [k-warm], limits: {requests_per_second: 1000, burst: 1000}}
                cache:
                  exact: {store: redis, redis_uri: "%s", ttl: 10m, timeout: 200ms}
                """.formatted(tenant, redisUri)));
    }

    private static HttpResponse<String> post(Gateway gw, String key) throws Exception {
        return RawHttp.post(gw.port(), "/v1/chat/completions", chat("shared " + nonce(), "\"max_tokens\":1"),
                "Authorization", "Bearer " + key);
    }

    /** Until a request of tenant warm was decided in Redis, not by the local fallback (the connect is async). */
    private static boolean sharing(Gateway gw) throws Exception {
        for (int i = 0; i < 50; i++) {
            double failOpen = metric(gw, "cachegate_quota_fail_open_total");
            post(gw, "k-warm");
            if (metric(gw, "cachegate_quota_fail_open_total") == failOpen) {
                return true;
            }
            Thread.sleep(100);
        }
        return false;
    }

    @Test
    void twoGateways_oneRedis_shareTheTenantsBucket() throws Exception {
        String redis = RedisTestServer.sharedUri();
        String tenant = "t" + nonce().replace("-", ""); // a bucket no earlier run left in Redis
        try (Gateway a = gateway(redis, tenant); Gateway b = gateway(redis, tenant)) {
            assertThat(sharing(a)).isTrue();
            assertThat(sharing(b)).isTrue();

            List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                statuses.add(post(i % 2 == 0 ? a : b, "k-limited").statusCode());
            }

            // Each gateway alone would let 4 through: 8 over both. Shared, the burst of 4 is all there is.
            assertThat(statuses.stream().filter(s -> s == 200).count()).isBetween(4L, 5L);
            assertThat(statuses.subList(0, 4)).containsOnly(200);
            assertThat(statuses.get(5)).isEqualTo(429);
            assertThat(RedisTestServer.command(redis, "EVAL", "return #redis.call('KEYS', ARGV[1])", "0",
                    "cachegate:quota:" + tenant + ":requests:*")).as("one bucket in Redis").isEqualTo(":1");
        }
    }

    @Test
    void redisUnreachable_failsOpenToTheGatewaysOwnBucket() throws Exception {
        String dead = "redis://127.0.0.1:" + RedisTestServer.freePort();
        try (Gateway gw = gateway(dead, "alone")) {
            List<Integer> statuses = new ArrayList<>();
            long started = System.nanoTime();
            HttpResponse<String> last = null;
            for (int i = 0; i < 5; i++) {
                last = post(gw, "k-limited");
                statuses.add(last.statusCode());
            }
            Duration took = Duration.ofNanos(System.nanoTime() - started);

            assertThat(statuses).as("still limited, by this gateway's bucket").containsExactly(200, 200, 200, 200, 429);
            assertThat(header(last, "x-ratelimit-limit-requests")).isEqualTo("4");
            assertThat(took).as("never held up by the dead Redis").isLessThan(Duration.ofSeconds(3));
            assertThat(metric(gw, "cachegate_quota_fail_open_total")).isGreaterThanOrEqualTo(5);
        }
    }

    @Test
    void redisStopped_whileShared_failsOpen() throws Exception {
        try (RedisTestServer redis = RedisTestServer.startPrivate();
             Gateway gw = gateway(redis.uri(), "stopped")) {
            assertThat(sharing(gw)).isTrue();
            redis.stop();

            HttpResponse<String> during = post(gw, "k-limited");

            assertThat(during.statusCode()).isEqualTo(200);
            assertThat(metric(gw, "cachegate_quota_fail_open_total")).isGreaterThanOrEqualTo(1);
        }
    }
}
