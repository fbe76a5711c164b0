package io.cachegate.cache.exact;

import io.cachegate.testing.RedisTestServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;

/** Keys, entries and polling for the store tests. */
final class TestEntries {

    private TestEntries() {
    }

    static CacheKey key(String tenant, String modelVersion) {
        byte[] digest = new byte[32];
        ThreadLocalRandom.current().nextBytes(digest);
        return new CacheKey(tenant, modelVersion, HexFormat.of().formatHex(digest));
    }

    static CacheEntry entry(String body, String... tags) {
        return new CacheEntry(body.getBytes(StandardCharsets.UTF_8), 1_700_000_000_000L, "m@1", "req-1", 12, 34,
                Set.of(tags));
    }

    static String body(CacheEntry entry) {
        return new String(entry.body(), StandardCharsets.UTF_8);
    }

    static String randomTenant() {
        return "t" + Long.toHexString(ThreadLocalRandom.current().nextLong());
    }

    /** Polls {@code condition} every 20ms until true; fails after {@code timeout} (no fixed sleeps). */
    static void await(Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within " + timeout);
            }
            RedisTestServer.pause(20);
        }
    }
}
