package io.cachegate.cache.exact;

import io.cachegate.testing.RedisTestServer;
import static io.cachegate.cache.exact.TestEntries.entry;
import static io.cachegate.cache.exact.TestEntries.key;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Purge of everything, on a private redis-server: the shared one may hold other data. */
class RedisPurgeAllIT {

    @Test
    void purge_all_removesEntriesAndTagSetsOnlyOfOurs() {
        try (RedisTestServer server = RedisTestServer.startPrivate();
             RedisCacheStore store = RedisStores.connected(server.uri())) {
            RedisTestServer.command(server.uri(), "SET", "not-ours", "1");
            for (int i = 0; i < 30; i++) {
                store.put(key("t" + (i % 3), "m@" + (i % 2)), entry("x", "doc:" + i % 5), Duration.ofMinutes(1)).join();
            }
            assertThat(store.purge(PurgeScope.everything()).join()).isEqualTo(30);
            assertThat(RedisTestServer.command(server.uri(), "DBSIZE")).isEqualTo(":1");
            assertThat(RedisTestServer.command(server.uri(), "EXISTS", "not-ours")).isEqualTo(":1");
        }
    }
}
