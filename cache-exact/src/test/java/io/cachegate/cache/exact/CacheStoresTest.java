package io.cachegate.cache.exact;

import io.cachegate.testing.RedisTestServer;
import static io.cachegate.cache.exact.TestEntries.key;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.ExactCacheSettings;
import io.cachegate.config.ExactStore;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CacheStoresTest {

    @Test
    void create_memory_isAvailableAtOnce() {
        StoreHealth health = new StoreHealth();
        try (CacheStore store = CacheStores.create(ExactCacheSettings.defaults(), health)) {
            assertThat(store).isInstanceOf(MemoryCacheStore.class);
            assertThat(health.available()).isTrue();
        }
    }

    @Test
    void create_tieredWithRedisDown_returnsAtOnceAndFailsOpen() {
        ExactCacheSettings d = ExactCacheSettings.defaults();
        ExactCacheSettings settings = new ExactCacheSettings(ExactStore.TIERED,
                "redis://127.0.0.1:" + RedisTestServer.freePort(), d.ttl(), Duration.ofMillis(50), d.maxBytes(),
                d.l1Ttl(), d.l1MaxBytes(), d.compressAboveBytes(), d.redisQueueSize());
        StoreHealth health = new StoreHealth();
        try (CacheStore store = CacheStores.create(settings, health)) {
            assertThat(store).isInstanceOf(TieredCacheStore.class);
            // Fails rather than hangs; how fast is a benchmark's business, not a unit test's.
            assertThat(store.get(key("t", "m"))).failsWithin(10, TimeUnit.SECONDS);
            assertThat(health.available()).isFalse();
            assertThat(health.errors()).isPositive();
        }
    }
}
