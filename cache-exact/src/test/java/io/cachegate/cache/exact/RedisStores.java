package io.cachegate.cache.exact;

import java.time.Duration;

/** Redis stores for the integration tests, connected before they are returned. */
final class RedisStores {

    private RedisStores() {
    }

    /** A generous timeout: a loaded CI machine must not turn a correct test into a flaky one. */
    static RedisCacheStore connected(String uri) {
        RedisCacheStore store = open(uri, Duration.ofSeconds(5), new StoreHealth());
        TestEntries.await(Duration.ofSeconds(10), store::available);
        return store;
    }

    static RedisCacheStore open(String uri, Duration timeout, StoreHealth health) {
        return RedisCacheStore.connect(uri, CacheStores.clientResources(), new EntryCodec(256),
                RedisStoreOptions.of(timeout, 1000), health);
    }
}
