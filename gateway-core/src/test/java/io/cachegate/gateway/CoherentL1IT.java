package io.cachegate.gateway;

import static io.cachegate.gateway.CacheCalls.chat;
import static io.cachegate.gateway.CacheCalls.header;
import static io.cachegate.gateway.CacheCalls.metric;
import static io.cachegate.gateway.CacheCalls.nonce;
import static io.cachegate.gateway.CacheCalls.purge;
import static io.cachegate.gateway.CacheCalls.xCache;
import static io.cachegate.gateway.RedisGateways.answeredWithin;
import static io.cachegate.gateway.RedisGateways.hitWithin;
import static io.cachegate.gateway.RedisGateways.post;
import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import io.cachegate.testing.RedisTestServer;
import io.cachegate.testkit.Poll;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two gateways with {@code store: tiered} (an L1 of ten minutes) over one redis-server of this class's own: what one
 * of them purges or overwrites leaves the other's L1 at once (the L1 invalidation channel), so does a change made
 * behind both gateways' backs (Redis's own tracking), and while a gateway cannot hear that channel its L1 is emptied
 * and not used.
 */
class CoherentL1IT {

    private static final String T0 = "t" + nonce();
    private static BackendSimulator sim;
    private static RedisTestServer redis;

    @BeforeAll
    static void start() {
        sim = BackendSimulator.start(SimulatorOptions.defaults());
        redis = RedisTestServer.startPrivate();
    }

    @AfterAll
    static void stop() {
        if (sim != null) {
            sim.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    private static Gateway tiered(String pin) throws Exception {
        return RedisGateways.start(sim.baseUrl(), "tiered", redis.uri(), pin, List.of(T0));
    }

    /** Until {@code n} invalidation subscriptions (one per tiered gateway) are counted on the channel. */
    private static void awaitSubscribers(int n) {
        assertThat(Poll.until(Duration.ofSeconds(10), () -> RedisTestServer.command(redis.uri(), "EVAL",
                "return redis.call('PUBSUB', 'NUMSUB', ARGV[1])[2]", "0", "cg:v1:invalidate").equals(":" + n)))
                .as("%d gateways subscribed to the invalidation channel", n).isTrue();
    }

    /** Deletes the pin's entries in Redis behind the gateways' backs (nothing is published). */
    private static void deleteQuietly(String pin) {
        RedisTestServer.command(redis.uri(), "EVAL", "local k = redis.call('KEYS', ARGV[1]); "
                + "for i = 1, #k do redis.call('DEL', k[i]) end; return #k", "0", "cg:v1:{" + T0 + "}:" + pin + ":*");
    }

    @Test
    void purgeThroughA_byModelVersionAndByTag_bMissesOnItsNextRequest() throws Exception {
        String pin = "m" + nonce();
        try (Gateway a = tiered(pin); Gateway b = tiered(pin)) {
            awaitSubscribers(2);
            String one = chat("coherent one " + nonce());
            String two = chat("coherent two " + nonce());
            assertThat(xCache(post(a, "k0", one, "X-Cache-Tags", "doc:1"))).isEqualTo("MISS");
            assertThat(xCache(post(a, "k0", two, "X-Cache-Tags", "doc:2"))).isEqualTo("MISS");
            assertThat(hitWithin(Duration.ofSeconds(5), b, "k0", one)).isTrue(); // now in B's L1
            assertThat(hitWithin(Duration.ofSeconds(5), b, "k0", two)).isTrue();

            // B applies a purge when its subscription reads it, a moment after A's purge has answered (within 1 s
            // here; an L1 of ten minutes would keep the entry for ten minutes without it).
            assertThat(purge(a, "{\"tag\":\"doc:1\"}")).isEqualTo(1);
            assertThat(answeredWithin(Duration.ofSeconds(1), b, "k0", one, "MISS")).as("purged by tag through A").isTrue();
            assertThat(xCache(post(b, "k0", two))).as("another tag stays").isEqualTo("HIT");

            assertThat(purge(a, "{\"model_version\":\"" + pin + "\"}")).isPositive();
            assertThat(answeredWithin(Duration.ofSeconds(1), b, "k0", two, "MISS"))
                    .as("purged by model version through A").isTrue();
        }
    }

    @Test
    void overwriteThroughA_bServesTheNewAnswer() throws Exception {
        String pin = "m" + nonce();
        try (Gateway a = tiered(pin); Gateway b = tiered(pin)) {
            awaitSubscribers(2);
            String body = chat("overwrite " + nonce());
            HttpResponse<String> first = post(a, "k0", body);
            assertThat(hitWithin(Duration.ofSeconds(5), b, "k0", body)).isTrue();
            assertThat(header(post(b, "k0", body), "X-Cache-Origin-Request-Id")).isEqualTo(header(first, "X-Request-Id"));

            HttpResponse<String> fresh = post(a, "k0", body, "Cache-Control", "no-cache");
            String freshId = header(fresh, "X-Request-Id");
            // The write-back is asynchronous; with an L1 of ten minutes only the invalidation can make B see it.
            assertThat(Poll.untilChecked(Duration.ofSeconds(5), () ->
                    freshId.equals(header(post(b, "k0", body), "X-Cache-Origin-Request-Id"))))
                    .as("B serves the answer A wrote over the old one").isTrue();
        }
    }

    @Test
    void invalidationConnectionLost_l1EmptiedAndBypassedUntilBack() throws Exception {
        String pin = "m" + nonce();
        // Without Redis's tracking (refused here as an ACL would: the gateways fall back to the channel alone), an
        // entry deleted behind the gateways' backs stays in B's L1: what shows whether the L1 was emptied.
        RedisTestServer.command(redis.uri(), "ACL", "SETUSER", "default", "-client|tracking");
        try (Gateway a = tiered(pin); Gateway b = tiered(pin)) {
            awaitSubscribers(2);
            assertThat(Poll.untilChecked(Duration.ofSeconds(5), () -> metric(b, "cachegate_cache_l1_serving") == 1))
                    .as("the L1 serves on the channel alone").isTrue();
            assertThat(metric(b, "cachegate_cache_l1_tracked")).as("Redis refused the tracking").isZero();
            String body = chat("lost " + nonce());
            post(a, "k0", body);
            assertThat(hitWithin(Duration.ofSeconds(5), b, "k0", body)).isTrue();
            // A publishes its write-back's invalidation after the write: when B copied the entry in between, that word
            // drops B's copy (then B misses, and its own write-back fills its L1). So: until B's L1 alone holds it.
            assertThat(Poll.until(Duration.ofSeconds(5), () -> {
                deleteQuietly(pin);
                try {
                    return xCache(post(b, "k0", body)).equals("HIT");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            })).as("B's L1 still holds it (nothing told B)").isTrue();

            // Drops both gateways' invalidation connections; Lettuce reconnects and subscribes again.
            assertThat(RedisTestServer.command(redis.uri(), "CLIENT", "KILL", "TYPE", "pubsub")).isEqualTo(":2");
            awaitSubscribers(2);
            deleteQuietly(pin); // a write-back of B's last miss may have landed after the loop's delete
            assertThat(xCache(post(b, "k0", body))).as("the L1 was emptied: what it missed meanwhile is unknown")
                    .isEqualTo("MISS");
        } finally {
            RedisTestServer.command(redis.uri(), "ACL", "SETUSER", "default", "+@all");
        }
    }

    @Test
    void entryDeletedBehindTheGateways_trackedByRedis_bMissesAtOnce() throws Exception {
        String pin = "m" + nonce();
        try (Gateway a = tiered(pin); Gateway b = tiered(pin)) {
            awaitSubscribers(2);
            assertThat(Poll.untilChecked(Duration.ofSeconds(5), () -> metric(b, "cachegate_cache_l1_tracked") == 1
                    && metric(b, "cachegate_cache_l1_serving") == 1)).as("tracked and serving").isTrue();
            String body = chat("tracked " + nonce());
            post(a, "k0", body);
            assertThat(hitWithin(Duration.ofSeconds(5), b, "k0", body)).isTrue();
            Thread.sleep(200); // A's write's own invalidations, which may drop B's first copy, have arrived
            assertThat(hitWithin(Duration.ofSeconds(5), b, "k0", body)).as("B hits, from its L1 of ten minutes").isTrue();

            deleteQuietly(pin); // an operator's DEL: no gateway publishes anything
            assertThat(answeredWithin(Duration.ofSeconds(1), b, "k0", body, "MISS"))
                    .as("Redis told B's L1 that the entry is gone").isTrue();
        }
    }

    @Test
    void redisDown_l1NotServed_thenBack() throws Exception {
        String pin = "m" + nonce();
        try (Gateway b = tiered(pin)) {
            awaitSubscribers(1);
            String body = chat("down " + nonce());
            post(b, "k0", body);
            assertThat(hitWithin(Duration.ofSeconds(5), b, "k0", body)).isTrue();
            redis.stop();
            try {
                assertThat(Poll.until(Duration.ofSeconds(5), () -> !RedisGateways.storeAvailable(b))).isTrue();
                assertThat(Poll.untilChecked(Duration.ofSeconds(5), () -> metric(b, "cachegate_cache_l1_serving") == 0))
                        .as("the L1 reported bypassed").isTrue();
                for (int i = 0; i < 5; i++) {
                    assertThat(xCache(post(b, "k0", body))).as("no L1 hit while invalidations cannot be heard")
                            .isEqualTo("MISS");
                }
            } finally {
                redis.start();
            }
            awaitSubscribers(1);
            post(b, "k0", body);
            assertThat(hitWithin(Duration.ofSeconds(10), b, "k0", body)).as("caching resumed").isTrue();
        }
    }
}
