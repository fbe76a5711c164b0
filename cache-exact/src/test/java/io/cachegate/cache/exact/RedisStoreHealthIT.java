package io.cachegate.cache.exact;

import static io.cachegate.cache.exact.TestEntries.await;
import static io.cachegate.cache.exact.TestEntries.entry;
import static io.cachegate.cache.exact.TestEntries.key;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.StoreHealthSettings;
import io.cachegate.testing.RedisTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The store's health against a real redis-server: one stall ({@code DEBUG SLEEP 0.2}) is a blip, not an outage; a
 * killed Redis degrades the store within the window and operations then fail fast; a restarted one is probed and
 * re-admitted. Bounds are generous and waits are polls with deadlines: a loaded 2-core machine must not fail it.
 */
class RedisStoreHealthIT {

    // The defaults but open_for 1s, so the restart is probed sooner.
    private static final StoreHealthSettings SETTINGS = new StoreHealthSettings(50, 20, 0.5, 0.8, 0.5,
            Duration.ofSeconds(1), 3, Duration.ofSeconds(1), 4);

    @Test
    void store_oneStallThenKillThenRestart_degradesOnlyOnTheOutage_thenProbesBackIn() throws Exception {
        try (RedisTestServer server = RedisTestServer.startPrivate("--enable-debug-command", "local")) {
            StoreHealth health = new StoreHealth();
            try (RedisCacheStore store = RedisCacheStore.connect(server.uri(), CacheStores.clientResources(),
                    new EntryCodec(256), EntrySigner.none(), RedisStoreOptions.of(Duration.ofMillis(50), 1000, SETTINGS),
                    health)) {
                await(Duration.ofSeconds(10), store::available);
                CacheKey key = key("t", "m");
                await(Duration.ofSeconds(10), () -> succeeds(store.put(key, entry("x"), Duration.ofMinutes(5))));
                lookUp(store, key, 40);

                // A blip: Redis stalls 200 ms, four times the 50 ms timeout, while lookups are in flight. (On a loaded
                // machine the timeout may already have risen above the stall, and they are merely slow: also no outage.)
                long errorsBefore = health.errors();
                long timeoutBefore = health.commandTimeout().toMillis();
                int late = stall(server, store, key);
                System.out.printf("stall: %d lookups timed out (command timeout %d ms before, %d ms after)%n", late,
                        timeoutBefore, health.commandTimeout().toMillis());
                assertThat(health.errors() - errorsBefore).as("each timed-out lookup is a counted miss").isEqualTo(late);
                int answered = lookUp(store, key, 40);
                assertThat(answered).as("lookups after the stall reach Redis").isGreaterThan(20);
                assertThat(health.stateChanges(StoreState.DEGRADED)).as("one stall is not an outage").isZero();
                assertThat(health.state()).isEqualTo(StoreState.HEALTHY);

                // An outage: every operation fails; the window degrades the store within its length.
                server.stop();
                int calls = 0;
                while (health.state() != StoreState.DEGRADED && calls < 10 * SETTINGS.window()) {
                    calls++;
                    ended(store.get(key));
                }
                assertThat(health.state()).isEqualTo(StoreState.DEGRADED);
                assertThat(calls).as("degraded within the window").isLessThanOrEqualTo(SETTINGS.window());
                assertThat(health.available()).isFalse();
                long errors = health.errors();
                CompletableFuture<?> refused = store.get(key);
                assertThat(refused).as("fails fast, without waiting on Redis").isCompletedExceptionally();
                assertThat(failure(refused)).isInstanceOf(StoreUnavailableException.class).hasMessageContaining("degraded");
                assertThat(health.errors()).as("a refusal is a counted miss").isEqualTo(errors + 1);

                // Back: after open_for the store probes Redis, and the probes re-admit it.
                server.start();
                await(Duration.ofSeconds(30), () -> {
                    ended(store.get(key));
                    return health.state() == StoreState.HEALTHY;
                });
                assertThat(health.stateChanges(StoreState.PROBING)).isGreaterThanOrEqualTo(1);
                assertThat(health.stateChanges(StoreState.HEALTHY)).isGreaterThanOrEqualTo(1);
                assertThat(health.available()).isTrue();
                assertThat(store.get(key)).as("a fresh server lost the entry: a miss, not a failure")
                        .succeedsWithin(5, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * Stalls Redis with {@code DEBUG SLEEP 0.2} while lookups run one after another; once one shows the stall has
     * begun (it timed out), sends four more at once. Returns how many lookups failed.
     */
    private static int stall(RedisTestServer server, RedisCacheStore store, CacheKey key) throws InterruptedException {
        String[] reply = new String[1];
        Thread stall = new Thread(() -> reply[0] = RedisTestServer.command(server.uri(), "DEBUG", "SLEEP", "0.2"));
        stall.start();
        int late = 0;
        while (stall.isAlive() && late == 0) {
            if (!ended(store.get(key))) {
                late++;
                List<CompletableFuture<?>> more = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    more.add(store.get(key));
                }
                for (CompletableFuture<?> f : more) {
                    late += ended(f) ? 0 : 1; // answered late, or timed out: either way it ends
                }
            }
        }
        stall.join(5000);
        assertThat(reply[0]).as("Redis stalled").isEqualTo("+OK");
        return late;
    }

    /** {@code n} lookups one after another; how many Redis answered. */
    private static int lookUp(RedisCacheStore store, CacheKey key, int n) {
        int answered = 0;
        for (int i = 0; i < n; i++) {
            answered += ended(store.get(key)) ? 1 : 0;
        }
        return answered;
    }

    /** Waits for {@code f} (bounded: every operation ends within its timeout); whether it succeeded. */
    private static boolean ended(CompletableFuture<?> f) {
        try {
            f.get(10, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException e) {
            return false;
        } catch (Exception e) {
            throw new AssertionError("an operation did not end within 10s", e);
        }
    }

    private static boolean succeeds(CompletableFuture<?> f) {
        return ended(f);
    }

    private static Throwable failure(CompletableFuture<?> f) {
        try {
            f.get(1, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
