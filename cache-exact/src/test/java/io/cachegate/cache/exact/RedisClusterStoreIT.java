package io.cachegate.cache.exact;

import static io.cachegate.cache.exact.MemoryCacheStoreTest.scope;
import static io.cachegate.cache.exact.TestEntries.await;
import static io.cachegate.cache.exact.TestEntries.entry;
import static io.cachegate.cache.exact.TestEntries.key;
import static io.cachegate.cache.exact.TestEntries.randomTenant;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.testing.RedisTestCluster;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Redis store on a local three-master cluster ({@link RedisTestCluster}, started once for the class): entries of
 * many tenants land on every master (the tenant is the key's hash tag), and every purge reaches all of them (SCAN runs
 * on each master; a tag's set lives in a slot of its own).
 */
class RedisClusterStoreIT {

    private static final Duration LEASE_TTL = Duration.ofSeconds(10);
    private static RedisTestCluster cluster;
    private static RedisCacheStore store;

    @BeforeAll
    static void start() {
        cluster = RedisTestCluster.start();
        store = RedisStores.connected(cluster.uri());
    }

    @AfterAll
    static void stop() {
        if (store != null) {
            store.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void empty() {
        store.purge(PurgeScope.everything()).join();
        assertThat(cluster.keys()).isZero();
    }

    /** 24 tenants with one entry each under model versions m@1 and m@2, tagged "even" or "odd"; on every master. */
    private static List<CacheKey> spread() {
        List<CacheKey> keys = new ArrayList<>();
        int[] owners = cluster.slotMasters();
        Set<Integer> masters = new HashSet<>();
        for (int i = 0; i < 24; i++) {
            String tenant = randomTenant();
            for (String model : List.of("m@1", "m@2")) {
                CacheKey key = key(tenant, model);
                store.put(key, entry("{\"i\":" + i + "}", i % 2 == 0 ? "even" : "odd"), Duration.ofMinutes(5)).join();
                keys.add(key);
                masters.add(owners[SlotHash.getSlot(key.redisKey())]);
            }
        }
        assertThat(masters).as("24 random tenants spread over the three masters").hasSize(3);
        return keys;
    }

    @Test
    void flightLeases_onTheCluster_claimWaitWordAndMarker_forTenantsOnEveryMaster() throws Exception {
        onEveryMaster((a, b, k, master) -> {
            assertThat(a.claim(k, LEASE_TTL, LEASE_TTL).join()).isEqualTo(FlightLeases.Claim.LEAD);
            CompletableFuture<Boolean> word = new CompletableFuture<>();
            assertThat(b.listen(k, word::complete)).isTrue();
            assertThat(b.claim(k, LEASE_TTL, LEASE_TTL).join()).isEqualTo(FlightLeases.Claim.ELSEWHERE);

            a.release(k, true);

            assertThat(word.get(5, TimeUnit.SECONDS)).as("the word crosses the cluster").isTrue();
            assertThat(b.claim(k, LEASE_TTL, LEASE_TTL).join()).isEqualTo(FlightLeases.Claim.DONE);
        });
    }

    /**
     * The word that a flight is done is published only once the done marker is set, on every master: the lease's
     * master is paused for writes while the lease is released, and the marker is read there (reads still answer) the
     * moment the word arrives. Sent together, the word reached the waiters through another node while the marker
     * waited (a CI failure: a waiter then claimed, found the lease still held and waited on).
     */
    @Test
    void flightEnd_onTheCluster_isPublishedOnlyOnceTheDoneMarkerIsSet() throws Exception {
        onEveryMaster((a, b, k, master) -> {
            String lease = RedisFlightLeases.leaseKey(k);
            assertThat(a.claim(k, LEASE_TTL, LEASE_TTL).join()).isEqualTo(FlightLeases.Claim.LEAD);
            CompletableFuture<String> markerWhenTold = new CompletableFuture<>();
            assertThat(b.listen(k, done -> markerWhenTold.completeAsync(
                    () -> cluster.cli(master, "GET", lease).strip()))).isTrue();

            cluster.cli(master, "CLIENT", "PAUSE", "700", "WRITE");
            a.release(k, true);

            assertThat(markerWhenTold.get(10, TimeUnit.SECONDS)).as("the marker on %d when the word came", master)
                    .isEqualTo("done");
        });
    }

    /** One step of a lease test: two gateways' leases, a key of a tenant whose lease lives on {@code master}. */
    private interface LeaseStep {
        void run(RedisFlightLeases a, RedisFlightLeases b, CacheKey key, int master) throws Exception;
    }

    /**
     * Runs {@code step} with two gateways' leases for a key on each master in turn, then removes every lease key it
     * made (the other tests count every key of the cluster).
     */
    private static void onEveryMaster(LeaseStep step) throws Exception {
        List<CacheKey> used = new ArrayList<>();
        try (RedisFlightLeases a = RedisFlightLeases.connect(cluster.uri(), Duration.ofSeconds(2), 100);
             RedisFlightLeases b = RedisFlightLeases.connect(cluster.uri(), Duration.ofSeconds(2), 100)) {
            await(Duration.ofSeconds(15), () -> ready(a, used) && ready(b, used));
            Set<Integer> masters = new HashSet<>();
            for (int i = 0; i < 60 && masters.size() < cluster.masters().size(); i++) {
                CacheKey k = key(randomTenant(), "m1");
                int master = cluster.masterOf(RedisFlightLeases.leaseKey(k));
                if (masters.add(master)) {
                    used.add(k);
                    step.run(a, b, k, master);
                }
            }
            assertThat(masters).as("a lease on every master").hasSize(cluster.masters().size());
        } finally {
            for (CacheKey k : used) {
                String lease = RedisFlightLeases.leaseKey(k);
                cluster.cli(cluster.masterOf(lease), "DEL", lease);
            }
        }
    }

    private static boolean ready(RedisFlightLeases leases, List<CacheKey> used) {
        CacheKey probe = key(randomTenant(), "m1");
        used.add(probe);
        return leases.claim(probe, LEASE_TTL, LEASE_TTL).join() == FlightLeases.Claim.LEAD;
    }

    @Test
    void get_afterPut_hitsOnEveryMaster_withTtl() {
        List<CacheKey> keys = spread();
        int[] owners = cluster.slotMasters();
        Set<Integer> checked = new HashSet<>();
        for (CacheKey key : keys) {
            assertThat(store.get(key).join()).as(key.redisKey()).isPresent();
            int master = owners[SlotHash.getSlot(key.redisKey())];
            if (checked.add(master)) { // one key's TTL on each master, read there directly
                long pttl = Long.parseLong(cluster.cli(master, "PTTL", key.redisKey()).strip());
                assertThat(pttl).isBetween(1L, Duration.ofMinutes(5).toMillis());
            }
        }
        String tagSet = RedisKeys.tagKey("even");
        long tagTtl = Long.parseLong(cluster.cli(cluster.masterOf(tagSet), "PTTL", tagSet).strip());
        assertThat(tagTtl).as("the tag's set expires too").isPositive();
        assertThat(store.get(key(randomTenant(), "m@1")).join()).isEmpty();
    }

    @Test
    void shortTtl_expiresOnTheCluster() {
        CacheKey key = key(randomTenant(), "m@1");
        store.put(key, entry("{}"), Duration.ofMillis(300)).join();
        assertThat(store.get(key).join()).isPresent();
        await(Duration.ofSeconds(5), () -> store.get(key).join().isEmpty());
    }

    @Test
    void purge_byModelVersion_reachesEveryMaster() {
        List<CacheKey> keys = spread();
        assertThat(store.purge(scope(null, "m@1", null)).join()).isEqualTo(24);
        for (CacheKey key : keys) {
            assertThat(store.get(key).join().isPresent()).as(key.redisKey()).isEqualTo(key.modelVersion().equals("m@2"));
        }
    }

    @Test
    void purge_byTenant_onlyThatTenantsSlot() {
        List<CacheKey> keys = spread();
        CacheKey victim = keys.get(5);
        assertThat(store.purge(scope(victim.tenant(), null, null)).join()).isEqualTo(2);
        for (CacheKey key : keys) {
            assertThat(store.get(key).join().isPresent()).isEqualTo(!key.tenant().equals(victim.tenant()));
        }
    }

    @Test
    void purge_byTag_acrossSlots() {
        List<CacheKey> keys = spread();
        assertThat(store.purge(scope(null, null, "odd")).join()).isEqualTo(24);
        int left = 0;
        for (CacheKey key : keys) {
            left += store.get(key).join().isPresent() ? 1 : 0;
        }
        assertThat(left).isEqualTo(24);
        String oddSet = RedisKeys.tagKey("odd");
        assertThat(cluster.cli(cluster.masterOf(oddSet), "EXISTS", oddSet).strip()).isEqualTo("0");
        assertThat(store.purge(scope(keys.get(0).tenant(), null, "even")).join()).as("tag within a tenant").isEqualTo(2);
    }

    @Test
    void purge_all_emptiesEveryMaster() {
        spread();
        assertThat(cluster.keys()).as("48 entries and two tag sets").isEqualTo(50);
        assertThat(store.purge(PurgeScope.everything()).join()).isEqualTo(48);
        assertThat(cluster.keys()).isZero();
    }
}
