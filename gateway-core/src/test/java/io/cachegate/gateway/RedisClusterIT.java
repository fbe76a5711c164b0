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
import io.cachegate.testing.RedisTestCluster;
import io.cachegate.testkit.Poll;
import io.lettuce.core.cluster.SlotHash;
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
 * Gateways on a local Redis Cluster of three masters and three replicas ({@link RedisTestCluster}, one for the
 * class): hits and every kind of purge through the admin API across the masters, coherent L1s, and last a master
 * killed under load (its replica promoted; the gateway follows without an error or a restart).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisClusterIT {

    private static final List<String> TENANTS = spreadOverSlots(6);
    private static BackendSimulator sim;
    private static RedisTestCluster cluster;

    /**
     * {@code n} fresh tenants, as many hashed into each third of the slots. Six random ones all landed on one of the
     * three masters (about 1 run in 240), failing the check that they span several; the cluster gives each master
     * a third of the slots in order, so these always do.
     */
    private static List<String> spreadOverSlots(int n) {
        List<String> tenants = new ArrayList<>();
        int[] perThird = new int[3];
        while (tenants.size() < n) {
            String tenant = "t" + nonce();
            int third = Math.min(2, SlotHash.getSlot("{" + tenant + "}") * 3 / SlotHash.SLOT_COUNT);
            if (perThird[third] < (n + 2) / 3) {
                perThird[third]++;
                tenants.add(tenant);
            }
        }
        return List.copyOf(tenants);
    }

    @BeforeAll
    static void start() {
        cluster = RedisTestCluster.start();
        sim = BackendSimulator.start(SimulatorOptions.defaults());
    }

    @AfterAll
    static void stop() {
        if (sim != null) {
            sim.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Gateway gateway(String store, String pin) throws Exception {
        return RedisGateways.start(sim.baseUrl(), store, cluster.uri(), pin, TENANTS);
    }

    @Test
    @Order(1)
    void hitsAndPurges_acrossEveryMaster() throws Exception {
        String pin = "m" + nonce();
        try (Gateway gw = gateway("redis", pin)) {
            List<String> bodies = new ArrayList<>();
            for (int i = 0; i < TENANTS.size(); i++) {
                String body = chat("cluster " + i + " " + nonce());
                bodies.add(body);
                assertThat(xCache(post(gw, "k" + i, body, "X-Cache-Tags", i % 2 == 0 ? "even" : "odd"))).isEqualTo("MISS");
                assertThat(hitWithin(Duration.ofSeconds(5), gw, "k" + i, body)).as("tenant %d", i).isTrue();
            }
            assertThat(TENANTS.stream().map(t -> cluster.masterOf("{" + t + "}")).distinct().count())
                    .as("six tenants' entries on more than one master").isGreaterThan(1);

            assertThat(purge(gw, "{\"tag\":\"odd\"}")).isEqualTo(3);
            assertThat(purge(gw, "{\"tenant\":\"" + TENANTS.get(0) + "\"}")).isEqualTo(1);
            for (int i = 0; i < TENANTS.size(); i++) {
                assertThat(xCache(post(gw, "k" + i, bodies.get(i)))).as("tenant %d", i)
                        .isEqualTo(i % 2 == 1 || i == 0 ? "MISS" : "HIT");
            }
            // Every entry is back (the misses above wrote them again): a model version purge takes all six.
            for (int i = 0; i < TENANTS.size(); i++) {
                assertThat(hitWithin(Duration.ofSeconds(5), gw, "k" + i, bodies.get(i))).isTrue();
            }
            assertThat(purge(gw, "{\"model_version\":\"" + pin + "\"}")).isEqualTo(6);
            assertThat(xCache(post(gw, "k2", bodies.get(2)))).isEqualTo("MISS");
            assertThat(hitWithin(Duration.ofSeconds(5), gw, "k2", bodies.get(2))).isTrue();
            assertThat(purge(gw, "{\"all\":true}")).isPositive();
            assertThat(cluster.keys()).as("nothing left on any master").isZero();
        }
    }

    @Test
    @Order(2)
    void tieredGateways_purgeThroughOne_otherMissesAtOnce() throws Exception {
        String pin = "m" + nonce();
        try (Gateway a = gateway("tiered", pin); Gateway b = gateway("tiered", pin)) {
            // The invalidation reaches B through whichever node B subscribed on (PUBLISH spans the cluster). B's
            // subscription is set up in the background: until it is, a round (a fresh entry in B's L1, purged
            // through A) may end with a stale HIT, and the next round tries again with a new entry and tag.
            assertThat(Poll.until(Duration.ofSeconds(10), () -> {
                try {
                    String body = chat("cluster tiered " + nonce());
                    String tag = "l1-" + nonce();
                    post(a, "k1", body, "X-Cache-Tags", tag);
                    return hitWithin(Duration.ofSeconds(5), b, "k1", body)
                            && purge(a, "{\"tag\":\"" + tag + "\"}") == 1
                            && xCache(post(b, "k1", body)).equals("MISS");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            })).as("a tag purge through A: B's next request misses").isTrue();
        }
    }

    @Test
    @Order(3)
    void masterKilledUnderLoad_replicaPromoted_noErrors_hitsResume() throws Exception {
        String pin = "m" + nonce();
        try (Gateway gw = gateway("redis", pin)) {
            List<String[]> calls = new ArrayList<>();
            for (int i = 0; i < TENANTS.size(); i++) {
                String body = chat("failover " + i + " " + nonce());
                calls.add(new String[] {"k" + i, body});
                post(gw, "k" + i, body);
                assertThat(hitWithin(Duration.ofSeconds(5), gw, "k" + i, body)).isTrue();
            }
            int victim = cluster.masterOf("{" + TENANTS.get(0) + "}");
            FailoverLoad load = FailoverLoad.drive(gw, calls, 0, () -> cluster.kill(victim), Duration.ofSeconds(30));
            System.out.println(load.report("Redis Cluster, 3 masters + 3 replicas, node timeout 1s"));
            assertThat(load.errors()).as("the cache fails open: no error reaches a client").isZero();
            assertThat(load.hitsResumedMillis()).as("hits on the promoted replica without a restart").isPositive();
            cluster.awaitHealthy(10_000);
            for (String[] call : calls) {
                assertThat(hitWithin(Duration.ofSeconds(5), gw, call[0], call[1])).isTrue();
            }
        }
    }
}
