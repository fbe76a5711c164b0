package io.cachegate.cache.exact;

import io.cachegate.testing.RedisTestServer;
import static io.cachegate.cache.exact.MemoryCacheStoreTest.scope;
import static io.cachegate.cache.exact.TestEntries.await;
import static io.cachegate.cache.exact.TestEntries.entry;
import static io.cachegate.cache.exact.TestEntries.key;
import static io.cachegate.cache.exact.TestEntries.randomTenant;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Two gateways' tiered stores over one shared Redis. */
class TieredCacheStoreIT {

    @Test
    void get_l1FilledFromRedis_andPurgeElsewhereSeenWithinL1Ttl() {
        String uri = RedisTestServer.sharedUri();
        String tenant = randomTenant();
        Duration l1Ttl = Duration.ofMillis(500);
        try (TieredCacheStore one = new TieredCacheStore(new MemoryCacheStore(1 << 20), l1Ttl, RedisStores.connected(uri));
             TieredCacheStore two = new TieredCacheStore(new MemoryCacheStore(1 << 20), l1Ttl, RedisStores.connected(uri))) {
            CacheKey key = key(tenant, "m@1");
            one.put(key, entry("x", "doc:9"), Duration.ofMinutes(1)).join();
            assertThat(one.l1().get(key).join()).isPresent();

            assertThat(two.l1().get(key).join()).isEmpty();
            assertThat(two.get(key).join()).isPresent();
            assertThat(two.l1().getWithTtl(key).join().orElseThrow().remaining()).isLessThanOrEqualTo(l1Ttl);

            assertThat(one.purge(scope(tenant, null, null)).join()).isEqualTo(1);
            assertThat(one.get(key).join()).as("purged here: gone at once").isEmpty();
            assertThat(two.get(key).join()).as("the other gateway's L1 copy").isPresent();
            await(Duration.ofSeconds(5), () -> two.get(key).join().isEmpty());
        }
    }

    @Test
    void coherent_purgeAndOverwriteElsewhere_leaveTheOtherL1AtOnce() {
        String uri = RedisTestServer.sharedUri();
        String tenant = randomTenant();
        Duration l1Ttl = Duration.ofMinutes(10);
        try (TieredCacheStore one = TieredCacheStore.coherent(new MemoryCacheStore(1 << 20), l1Ttl, RedisStores.connected(uri));
             TieredCacheStore two = TieredCacheStore.coherent(new MemoryCacheStore(1 << 20), l1Ttl, RedisStores.connected(uri))) {
            await(Duration.ofSeconds(10), () -> one.coherent() && two.coherent()); // both subscribed
            CacheKey key = key(tenant, "m@1");
            one.put(key, entry("first", "doc:7"), Duration.ofMinutes(1)).join();
            // The first write's own invalidation may still be on its way and drop two's first copy: read until kept.
            await(Duration.ofSeconds(2), () -> two.get(key).join().isPresent() && two.l1().get(key).join().isPresent());

            one.put(key, entry("second", "doc:7"), Duration.ofMinutes(1)).join();
            await(Duration.ofSeconds(2), () -> two.l1().get(key).join().isEmpty());
            assertThat(TestEntries.body(two.get(key).join().orElseThrow())).isEqualTo("second");

            assertThat(one.purge(scope(null, null, "doc:7")).join()).isEqualTo(1);
            await(Duration.ofSeconds(2), () -> two.l1().get(key).join().isEmpty());
            assertThat(two.get(key).join()).isEmpty();
        }
    }

    @Test
    void get_redisDegradedButSubscribed_l1KeepsServing() {
        try (RedisTestServer server = RedisTestServer.startPrivate()) {
            StoreHealth health = new StoreHealth();
            try (TieredCacheStore tiered = TieredCacheStore.coherent(new MemoryCacheStore(1 << 20), Duration.ofMinutes(10),
                    RedisStores.open(server.uri(), Duration.ofMillis(50), health))) {
                // Tracking armed too: arming empties the L1 (a change made before it is unknown), and on a loaded
                // machine it came after keptInL1, so the lookup below found the L1 empty.
                await(Duration.ofSeconds(10), () -> health.available() && tiered.coherent()
                        && tiered.tracking() == RedisTracking.State.LIVE);
                CacheKey key = key("t", "m@1");
                keptInL1(tiered, key);

                // Redis answers nothing, yet the connections (the subscription's too) stay up: lookups time out.
                RedisTestServer.command(server.uri(), "CLIENT", "PAUSE", "5000", "ALL");
                List<CompletableFuture<?>> lookups = new ArrayList<>();
                for (int i = 0; i < 30; i++) {
                    lookups.add(tiered.get(key("t", "m@1")));
                }
                lookups.forEach(f -> f.handle((v, e) -> null).join());
                assertThat(health.state()).isEqualTo(StoreState.DEGRADED);

                assertThat(tiered.coherent()).as("still subscribed: invalidations would be heard").isTrue();
                assertThat(tiered.get(key)).as("the L1 serves what it holds").succeedsWithin(Duration.ofSeconds(1))
                        .satisfies(e -> assertThat(TestEntries.body(e.orElseThrow())).isEqualTo("kept"));
                assertThat(tiered.get(key("t", "m@1"))).as("an L1 miss fails fast").failsWithin(Duration.ofSeconds(1));
            }
        }
    }

    @Test
    void coherent_changesMadeWithoutAGateway_leaveTheL1() {
        try (RedisTestServer server = RedisTestServer.startPrivate();
             TieredCacheStore tiered = TieredCacheStore.coherent(new MemoryCacheStore(1 << 20), Duration.ofMinutes(10),
                     RedisStores.connected(server.uri()))) {
            await(Duration.ofSeconds(10), () -> tiered.coherent() && tiered.tracking() == RedisTracking.State.LIVE);
            CacheKey deleted = key("t", "m@1");
            CacheKey flushed = key("t", "m@2");
            for (CacheKey key : List.of(deleted, flushed)) {
                keptInL1(tiered, key);
            }

            RedisTestServer.command(server.uri(), "DEL", deleted.redisKey()); // an operator, not a gateway
            await(Duration.ofSeconds(2), () -> tiered.l1().get(deleted).join().isEmpty());
            assertThat(tiered.get(deleted).join()).isEmpty();
            assertThat(tiered.l1().get(flushed).join()).as("only the deleted key's copy left").isPresent();

            RedisTestServer.command(server.uri(), "FLUSHDB");
            await(Duration.ofSeconds(2), () -> tiered.l1().get(flushed).join().isEmpty());
            assertThat(tiered.get(flushed).join()).isEmpty();
        }
    }

    @Test
    void tracking_connectionKilled_l1BypassedUntilArmedAgain_thenFollowsChanges() {
        try (RedisTestServer server = RedisTestServer.startPrivate();
             TieredCacheStore tiered = TieredCacheStore.coherent(new MemoryCacheStore(1 << 20), Duration.ofMinutes(10),
                     RedisStores.connected(server.uri()))) {
            await(Duration.ofSeconds(10), () -> tiered.coherent() && tiered.tracking() == RedisTracking.State.LIVE);
            CacheKey key = key("t", "m@1");
            keptInL1(tiered, key);

            // Every plain connection (the store's and the tracking one; not the subscription) is cut: the server
            // forgets the tracking with the connection, so until it is armed again the L1 must not serve.
            RedisTestServer.command(server.uri(), "CLIENT", "KILL", "TYPE", "normal");
            await(Duration.ofSeconds(2), () -> tiered.tracking() != RedisTracking.State.LIVE || !tiered.coherent()
                    || tiered.l1().get(key).join().isEmpty());
            await(Duration.ofSeconds(10), () -> tiered.coherent() && tiered.tracking() == RedisTracking.State.LIVE);

            keptInL1(tiered, key);
            RedisTestServer.command(server.uri(), "DEL", key.redisKey());
            await(Duration.ofSeconds(2), () -> tiered.l1().get(key).join().isEmpty());
            assertThat(tiered.get(key).join()).as("armed again: the delete was heard").isEmpty();
        }
    }

    /**
     * Writes {@code key} through {@code tiered} (again while the store reconnects), then reads it until its L1 holds
     * it: the write's own invalidation, coming back from Redis, may drop the first copy.
     */
    private static void keptInL1(TieredCacheStore tiered, CacheKey key) {
        await(Duration.ofSeconds(10), () -> {
            try {
                tiered.put(key, entry("kept"), Duration.ofMinutes(5)).join();
                return true;
            } catch (RuntimeException e) {
                return false;
            }
        });
        // The write's own invalidation (tracking push, the gateways' channel) may arrive after the L1 first holds the
        // entry and drop it (seen once in CI: the L1 then missed under the pause): held is still held a moment later.
        await(Duration.ofSeconds(5), () -> heldInL1(tiered, key) && heldInL1After(tiered, key, 300));
    }

    private static boolean heldInL1(TieredCacheStore tiered, CacheKey key) {
        return tiered.get(key).join().isPresent() && tiered.l1().get(key).join().isPresent();
    }

    private static boolean heldInL1After(TieredCacheStore tiered, CacheKey key, long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return tiered.l1().get(key).join().isPresent();
    }
}
