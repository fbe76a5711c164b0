package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.chat;
import static io.cachegate.gateway.CacheCalls.nonce;
import static io.cachegate.gateway.CacheCalls.purge;
import static io.cachegate.gateway.CacheCalls.xCache;
import static io.cachegate.gateway.RedisGateways.hitWithin;
import static io.cachegate.gateway.RedisGateways.post;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.testing.RedisTestSentinel;
import io.cachegate.testkit.Poll;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Gateways on a local Sentinel set ({@link RedisTestSentinel}: one master, one replica, three sentinels; one for the
 * class) through a {@code redis-sentinel://...#cachegate} URI: hits, purges and coherent L1s, and last the master
 * killed under load (the sentinels promote the replica; the gateway reconnects to it without an error or a restart).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisSentinelIT {

    private static final List<String> TENANTS = List.of("t" + nonce(), "t" + nonce());
    private static BackendSimulator sim;
    private static RedisTestSentinel sentinel;

    @BeforeAll
    static void start() {
        sentinel = RedisTestSentinel.start();
        sim = BackendSimulator.start(SimulatorOptions.defaults());
    }

    @AfterAll
    static void stop() {
        if (sim != null) {
            sim.close();
        }
        if (sentinel != null) {
            sentinel.close();
        }
    }

    private static Gateway gateway(String store, String pin) throws Exception {
        return RedisGateways.start(sim.baseUrl(), store, sentinel.uri(), pin, TENANTS);
    }

    @Test
    @Order(1)
    void hitsPurgesAndCoherentL1s_throughTheSentinels() throws Exception {
        String pin = "m" + nonce();
        try (Gateway a = gateway("tiered", pin); Gateway b = gateway("tiered", pin)) {
            String one = chat("sentinel one " + nonce());
            String two = chat("sentinel two " + nonce());
            assertThat(xCache(post(a, "k0", one, "X-Cache-Tags", "s:1"))).isEqualTo("MISS");
            post(a, "k1", two);
            assertThat(hitWithin(Duration.ofSeconds(5), b, "k0", one)).isTrue();
            assertThat(hitWithin(Duration.ofSeconds(5), b, "k1", two)).isTrue();
            assertThat(sentinel.cli(sentinel.master(), "DBSIZE").strip()).as("two entries and a tag set").isEqualTo("3");

            assertThat(Poll.untilChecked(Duration.ofSeconds(5), () ->
                    purge(a, "{\"tag\":\"s:1\"}") == 1 && xCache(post(b, "k0", one)).equals("MISS")))
                    .as("a tag purge through A reaches B's L1").isTrue();
            assertThat(purge(a, "{\"tenant\":\"" + TENANTS.get(1) + "\"}")).isEqualTo(1);
            assertThat(xCache(post(b, "k1", two))).as("a tenant purge through A reaches B's L1").isEqualTo("MISS");
        }
    }

    @Test
    @Order(2)
    void masterKilledUnderLoad_replicaPromoted_noErrors_hitsResume() throws Exception {
        String pin = "m" + nonce();
        try (Gateway gw = gateway("redis", pin)) {
            List<String[]> calls = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                String body = chat("sentinel failover " + i + " " + nonce());
                calls.add(new String[] {"k" + (i % 2), body});
                post(gw, "k" + (i % 2), body);
                assertThat(hitWithin(Duration.ofSeconds(5), gw, "k" + (i % 2), body)).isTrue();
            }
            // The entries reach the replica before its master dies (replication is asynchronous).
            assertThat(Poll.until(Duration.ofSeconds(5), () -> sentinel.cli(sentinel.replica(), "DBSIZE").strip()
                    .equals(sentinel.cli(sentinel.master(), "DBSIZE").strip()))).isTrue();
            FailoverLoad load = FailoverLoad.drive(gw, calls, 0, sentinel::killMaster, Duration.ofSeconds(40));
            System.out.println(load.report("Sentinel, 1 master + 1 replica + 3 sentinels, down-after 1s"));
            assertThat(load.errors()).as("the cache fails open: no error reaches a client").isZero();
            assertThat(load.hitsResumedMillis()).as("hits on the promoted replica without a restart").isPositive();
            sentinel.awaitFailover(10_000);
            for (String[] call : calls) {
                assertThat(hitWithin(Duration.ofSeconds(5), gw, call[0], call[1])).isTrue();
            }
        }
    }
}
