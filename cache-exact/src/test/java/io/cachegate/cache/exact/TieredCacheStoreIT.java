package io.cachegate.cache.exact;

import io.cachegate.testing.RedisTestServer;
import static io.cachegate.cache.exact.MemoryCacheStoreTest.scope;
import static io.cachegate.cache.exact.TestEntries.await;
import static io.cachegate.cache.exact.TestEntries.entry;
import static io.cachegate.cache.exact.TestEntries.key;
import static io.cachegate.cache.exact.TestEntries.randomTenant;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
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
}
