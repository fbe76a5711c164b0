package io.cachegate.cache.exact;

import io.cachegate.testing.RedisTestServer;
import static io.cachegate.cache.exact.TestEntries.await;
import static io.cachegate.cache.exact.TestEntries.entry;
import static io.cachegate.cache.exact.TestEntries.key;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A Redis that is absent or dies never blocks a caller, and the same store recovers by itself. */
class RedisFailOpenIT {

    @Test
    void operations_nothingListening_failFast() {
        StoreHealth health = new StoreHealth();
        long started = System.nanoTime();
        try (RedisCacheStore store = RedisStores.open("redis://127.0.0.1:" + RedisTestServer.freePort(),
                Duration.ofMillis(50), health)) {
            // Generous on purpose (a loaded CI machine): a constructor that waited on Lettuce's 10 s connect would fail it.
            assertThat(elapsedMillis(started)).as("construction does not wait for Redis").isLessThan(5000);
            CacheKey key = key("t", "m");
            assertFailsFast(store.get(key));
            assertFailsFast(store.put(key, entry("x"), Duration.ofMinutes(1)));
            assertFailsFast(store.purge(PurgeScope.everything()));
            assertThat(health.available()).isFalse();
            assertThat(health.errors()).isGreaterThanOrEqualTo(3);
        }
    }

    @Test
    void operations_redisStoppedThenRestarted_failFastThenRecoverWithoutRebuild() {
        try (RedisTestServer server = RedisTestServer.startPrivate();
             RedisCacheStore store = RedisStores.connected(server.uri())) {
            CacheKey key = key("t", "m");
            store.put(key, entry("before"), Duration.ofMinutes(5)).join();
            assertThat(store.get(key).join()).isPresent();

            server.stop();
            await(Duration.ofSeconds(5), () -> !store.available());
            for (int i = 0; i < 20; i++) {
                assertFailsFast(store.get(key));
                assertFailsFast(store.put(key, entry("during"), Duration.ofMinutes(5)));
            }

            long restarted = System.nanoTime();
            server.start();
            CacheKey after = key("t", "m");
            await(Duration.ofSeconds(10), () -> {
                try {
                    store.put(after, entry("after"), Duration.ofMinutes(5)).join();
                    return store.get(after).join().isPresent();
                } catch (CompletionException e) {
                    return false;
                }
            });
            System.out.printf("redis restart: store usable again after %d ms%n", elapsedMillis(restarted));
            assertThat(store.available()).isTrue();
            assertThat(store.get(key).join()).as("a fresh server without persistence lost the old entry").isEmpty();
        }
    }

    @Test
    void get_redisPausedWhileConnected_timesOutAsUnavailable() {
        try (RedisTestServer server = RedisTestServer.startPrivate()) {
            StoreHealth health = new StoreHealth();
            try (RedisCacheStore store = RedisStores.open(server.uri(), Duration.ofMillis(50), health)) {
                await(Duration.ofSeconds(10), store::available);
                // The connection stays up but Redis does not answer: only the command timeout can end the GET.
                RedisTestServer.command(server.uri(), "CLIENT", "PAUSE", "1500", "ALL");
                assertFailsFast(store.get(key("t", "m")));
                assertThat(health.errors()).isGreaterThanOrEqualTo(1);
            }
        }
    }

    /** Fails with the store's own exception instead of hanging (the speed is measured by the benchmarks). */
    private static void assertFailsFast(CompletableFuture<?> future) {
        assertThat(future).failsWithin(2, TimeUnit.SECONDS)
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(StoreUnavailableException.class);
    }

    private static long elapsedMillis(long startedNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
    }
}
