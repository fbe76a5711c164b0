package io.cachegate.cache.exact;

import io.cachegate.testing.RedisTestServer;
import static io.cachegate.cache.exact.MemoryCacheStoreTest.scope;
import static io.cachegate.cache.exact.TestEntries.await;
import static io.cachegate.cache.exact.TestEntries.entry;
import static io.cachegate.cache.exact.TestEntries.key;
import static io.cachegate.cache.exact.TestEntries.randomTenant;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultEventLoopGroupProvider;
import io.lettuce.core.resource.Transports;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Against the shared redis-server: every test uses its own random tenants and never flushes. */
class RedisCacheStoreIT {

    private static String uri;
    private static RedisCacheStore store;
    private final String tenant = randomTenant();

    @BeforeAll
    static void connect() {
        uri = RedisTestServer.sharedUri();
        store = RedisStores.connected(uri);
    }

    @AfterAll
    static void close() {
        store.close();
    }

    @Test
    void get_afterPut_roundTrips() {
        CacheKey key = key(tenant, "m@1");
        CacheEntry entry = entry("{\"id\":\"x\"}", "doc:1");
        store.put(key, entry, Duration.ofMinutes(1)).join();
        CacheEntry found = store.get(key).join().orElseThrow();
        assertThat(found).usingRecursiveComparison().isEqualTo(entry);
        assertThat(store.get(key(tenant, "m@1")).join()).isEmpty();
        assertThat(RedisTestServer.command(uri, "PTTL", key.redisKey())).startsWith(":").isNotEqualTo(":-1");
    }

    @Test
    void get_largeBody_storedCompressed() {
        CacheKey key = key(tenant, "m@1");
        CacheEntry entry = entry("{\"content\":\"" + "lorem ipsum ".repeat(2000) + "\"}");
        store.put(key, entry, Duration.ofMinutes(1)).join();
        assertThat(store.get(key).join().orElseThrow().body()).isEqualTo(entry.body());
        long stored = Long.parseLong(RedisTestServer.command(uri, "STRLEN", key.redisKey()).substring(1));
        assertThat(stored).isLessThan(entry.body().length / 10);
    }

    @Test
    void get_afterTtl_isEmpty() {
        CacheKey key = key(tenant, "m@1");
        store.put(key, entry("x"), Duration.ofMillis(300)).join();
        assertThat(store.get(key).join()).isPresent();
        await(Duration.ofSeconds(5), () -> store.get(key).join().isEmpty());
    }

    @Test
    void getWithTtl_reportsRemaining() {
        CacheKey key = key(tenant, "m@1");
        store.put(key, entry("x"), Duration.ofSeconds(30)).join();
        TtlAwareCacheStore.Timed timed = store.getWithTtl(key).join().orElseThrow();
        assertThat(timed.remaining()).isBetween(Duration.ofSeconds(25), Duration.ofSeconds(30));
    }

    @Test
    void get_corruptValue_isMissAndRemoved() {
        CacheKey key = key(tenant, "m@1");
        RedisTestServer.command(uri, "SET", key.redisKey(), "not an entry", "PX", "60000");
        long errors = store.health().errors();
        assertThat(store.get(key).join()).isEmpty();
        assertThat(store.health().errors()).isGreaterThan(errors);
        await(Duration.ofSeconds(2), () -> RedisTestServer.command(uri, "EXISTS", key.redisKey()).equals(":0"));
    }

    @Test
    void purge_byUser_removesThatUsersEntries_notOnesSinceOverwrittenByAnother() {
        String alice = UserDigest.of("alice-" + tenant);
        String bob = UserDigest.of("bob-" + tenant);
        String other = randomTenant();
        CacheKey a1 = key(tenant, "m@1");
        CacheKey a2 = key(tenant, "m@2");
        CacheKey aOther = key(other, "m@1");
        CacheKey overwritten = key(tenant, "m@1");
        CacheKey b1 = key(tenant, "m@1");
        Duration ttl = Duration.ofMinutes(1);
        store.put(a1, MemoryCacheStoreTest.forUser("a1", alice), ttl).join();
        store.put(a2, MemoryCacheStoreTest.forUser("a2", alice), ttl).join();
        store.put(aOther, MemoryCacheStoreTest.forUser("a3", alice), ttl).join();
        store.put(overwritten, MemoryCacheStoreTest.forUser("was alice's", alice), ttl).join();
        store.put(overwritten, MemoryCacheStoreTest.forUser("now bob's", bob), ttl).join();
        store.put(b1, MemoryCacheStoreTest.forUser("b1", bob), ttl).join();

        PurgeScope aliceHere = new PurgeScope(false, Optional.of(tenant), Optional.empty(), Optional.empty(),
                Optional.of(alice));
        assertThat(store.purge(aliceHere).join()).isEqualTo(2);
        assertThat(store.get(a1).join()).isEmpty();
        assertThat(store.get(a2).join()).isEmpty();
        assertThat(store.get(aOther).join()).as("another tenant").isPresent();
        assertThat(store.get(overwritten).join()).as("now bob's").isPresent();
        assertThat(store.purge(PurgeScope.user(alice)).join()).isEqualTo(1);
        assertThat(store.get(aOther).join()).isEmpty();
        assertThat(RedisTestServer.command(uri, "EXISTS", RedisKeys.userKey(alice))).as("the set goes too").isEqualTo(":0");
        assertThat(store.purge(PurgeScope.user(bob)).join()).isEqualTo(2);
    }

    @Test
    void get_connectionPerLoop_answersOnTheLoopThatAsked() throws Exception {
        // As in the gateway, whose loops Lettuce borrows: a store with a connection per loop of its group.
        DefaultEventLoopGroupProvider loops = new DefaultEventLoopGroupProvider(2);
        EventLoopGroup group = loops.allocate(Transports.eventLoopGroupClass());
        try (RedisCacheStore looped = RedisCacheStore.connect(uri, CacheStores.clientResources(loops), new EntryCodec(256),
                EntrySigner.none(), RedisStoreOptions.of(Duration.ofSeconds(5), 1000), new StoreHealth(), 2)) {
            await(Duration.ofSeconds(10), looped::available);
            CacheKey key = key(tenant, "m@1");
            looped.put(key, entry("{\"id\":\"looped\"}"), Duration.ofMinutes(1)).join();
            int answeredWhereAsked = 0;
            for (EventExecutor loop : group) {
                for (int i = 0; i < 10; i++) { // the first answers tell the store which loop each connection is on
                    boolean sameThread = loop.submit(() -> {
                        Thread asker = Thread.currentThread();
                        return looped.get(key).thenApply(found -> {
                            assertThat(TestEntries.body(found.orElseThrow())).isEqualTo("{\"id\":\"looped\"}");
                            return Thread.currentThread() == asker;
                        });
                    }).get(10, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
                    answeredWhereAsked += i == 9 && sameThread ? 1 : 0;
                }
            }
            // Each connection is registered on a loop of the group; a loop holding one is answered on itself.
            assertThat(answeredWhereAsked).isPositive();
        } finally {
            loops.release(group, 0, 1, TimeUnit.SECONDS);
        }
    }

    @Test
    void close_withAConnectionPerLoop_closesEveryConnectionOnRedis() {
        // The store leaves closing its connections to the client's bounded shutdown (closing them first as well made
        // Lettuce warn "already closed" on a clean stop, whenever its own close had not finished): none may be left.
        String name = "close-" + tenant;
        RedisCacheStore twoConnections = RedisCacheStore.connect(uri + "?clientName=" + name,
                CacheStores.clientResources(), new EntryCodec(256), EntrySigner.none(),
                RedisStoreOptions.of(Duration.ofSeconds(5), 1000), new StoreHealth(), 2);
        await(Duration.ofSeconds(10), () -> twoConnections.available() && clientsNamed(name) == 2);
        CacheKey key = key(tenant, "m@1");
        twoConnections.put(key, entry("{\"id\":\"closing\"}"), Duration.ofMinutes(1)).join();

        twoConnections.close();

        assertThat(twoConnections.get(key)).as("a closed store sends nothing: unavailable, a miss to its caller")
                .isCompletedExceptionally();
        await(Duration.ofSeconds(5), () -> clientsNamed(name) == 0);
    }

    private static long clientsNamed(String name) {
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            return c.sync().clientList().lines().filter(l -> l.contains(" name=" + name + " ")).count();
        } finally {
            client.shutdown(0, 1, TimeUnit.SECONDS);
        }
    }

    @Test
    void get_connectionPerLoop_stalledRedis_timesOutWithinItsCommandTimeout() throws Exception {
        // The command timeouts of a store on the loops run on the loops' own schedulers (LoopTimer): a lookup Redis
        // does not answer still fails at its timeout, long before the stall ends.
        DefaultEventLoopGroupProvider loops = new DefaultEventLoopGroupProvider(2);
        EventLoopGroup group = loops.allocate(Transports.eventLoopGroupClass());
        ClientResources resources = CacheStores.clientResources(loops);
        assertThat(resources.timer()).isInstanceOf(LoopTimer.class);
        try (RedisTestServer server = RedisTestServer.startPrivate("--enable-debug-command", "local");
             RedisCacheStore looped = RedisCacheStore.connect(server.uri(), resources, new EntryCodec(256),
                     EntrySigner.none(), RedisStoreOptions.of(Duration.ofMillis(100), 1000), new StoreHealth(), 2)) {
            await(Duration.ofSeconds(10), looped::available);
            CacheKey key = key(tenant, "m@1");
            looped.put(key, entry("{\"id\":\"stalled\"}"), Duration.ofMinutes(1)).join();
            EventExecutor loop = group.next();
            for (int i = 0; i < 10; i++) { // answered: the store learns which loop each connection is on
                loop.submit(() -> looped.get(key)).get(10, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
            }

            Thread stall = new Thread(() -> RedisTestServer.command(server.uri(), "DEBUG", "SLEEP", "3"));
            stall.start();
            Thread.sleep(200); // the stall has begun: Redis answers nothing for the next ~2.8 s
            long asked = System.nanoTime();
            CompletableFuture<?> lookup = loop.submit(() -> looped.get(key)).get(10, TimeUnit.SECONDS);
            Throwable failure = lookup.handle((found, error) -> error).get(10, TimeUnit.SECONDS);
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);
            stall.join(10_000);

            assertThat(failure).as("the lookup failed (a miss)").isNotNull();
            assertThat(failure).hasRootCauseInstanceOf(RedisCommandTimeoutException.class);
            // The command timeout is 100 ms and adapts to measured latency up to 1 s (timeout_max); the stall is 3 s.
            assertThat(tookMillis).as("failed at its timeout, not when Redis woke").isLessThan(2_000);
        } finally {
            loops.release(group, 0, 1, TimeUnit.SECONDS);
        }
    }

    @Test
    void signedStore_roundTrips_andRefusesUnsignedTamperedOrMovedValues() {
        try (RedisCacheStore signed = RedisCacheStore.connect(uri, CacheStores.clientResources(), new EntryCodec(256),
                EntrySigner.hmacSha256("a-signing-key-of-at-least-32-bytes".getBytes(StandardCharsets.UTF_8)),
                RedisStoreOptions.of(Duration.ofMillis(500), 1000), new StoreHealth())) {
            await(Duration.ofSeconds(10), signed::available);
            CacheKey key = key(tenant, "m@1");
            signed.put(key, entry("{\"id\":\"signed\"}", "doc:1"), Duration.ofMinutes(1)).join();
            assertThat(TestEntries.body(signed.get(key).join().orElseThrow())).isEqualTo("{\"id\":\"signed\"}");

            // Moved: the same bytes under another key are refused (the MAC covers the key).
            CacheKey moved = key(tenant, "m@1");
            RedisTestServer.command(uri, "COPY", key.redisKey(), moved.redisKey());
            long errors = signed.health().errors();
            assertThat(signed.get(moved).join()).isEmpty();
            assertThat(signed.health().errors()).as("counted like a corrupt entry").isGreaterThan(errors);

            // Unsigned: written by a store without the key (or planted), CRC intact.
            CacheKey planted = key(tenant, "m@1");
            store.put(planted, entry("{\"id\":\"planted\"}"), Duration.ofMinutes(1)).join();
            assertThat(store.get(planted).join()).as("readable without signing").isPresent();
            assertThat(signed.get(planted).join()).isEmpty();

            // Tampered: one byte of the stored value changed, TTL kept.
            RedisTestServer.command(uri, "EVAL", "local v = redis.call('GET', KEYS[1]); "
                    + "redis.call('SETRANGE', KEYS[1], 30, string.char((string.byte(v, 31) + 1) % 256)); return 1",
                    "1", key.redisKey());
            assertThat(signed.get(key).join()).isEmpty();
            await(Duration.ofSeconds(2), () -> RedisTestServer.command(uri, "EXISTS", key.redisKey()).equals(":0"));
        }
    }

    @Test
    void purge_byTenant_onlyThatTenant() {
        String other = randomTenant();
        CacheKey[] mine = {key(tenant, "m@1"), key(tenant, "m@2"), key(tenant, "m:3")};
        CacheKey theirs = key(other, "m@1");
        for (CacheKey k : mine) {
            store.put(k, entry("x"), Duration.ofMinutes(1)).join();
        }
        store.put(theirs, entry("y"), Duration.ofMinutes(1)).join();
        assertThat(store.purge(scope(tenant, null, null)).join()).isEqualTo(3);
        for (CacheKey k : mine) {
            assertThat(store.get(k).join()).isEmpty();
        }
        assertThat(store.get(theirs).join()).isPresent();
        store.purge(scope(other, null, null)).join();
    }

    @Test
    void purge_byModelVersion_acrossTenantsOnlyThatVersion() {
        String other = randomTenant();
        String version = "mv-" + randomTenant();
        CacheKey a = key(tenant, version);
        CacheKey b = key(other, version);
        CacheKey keep = key(tenant, version + "x");
        store.put(a, entry("a"), Duration.ofMinutes(1)).join();
        store.put(b, entry("b"), Duration.ofMinutes(1)).join();
        store.put(keep, entry("k"), Duration.ofMinutes(1)).join();
        assertThat(store.purge(scope(null, version, null)).join()).isEqualTo(2);
        assertThat(store.get(a).join()).isEmpty();
        assertThat(store.get(b).join()).isEmpty();
        assertThat(store.get(keep).join()).isPresent();
        assertThat(store.purge(scope(tenant, version + "x", null)).join()).isEqualTo(1);
    }

    @Test
    void purge_byTag_andNarrowedByTenant() {
        String other = randomTenant();
        String tag = "doc:" + randomTenant() + " {*}";
        CacheKey mine = key(tenant, "m@1");
        CacheKey theirs = key(other, "m@1");
        CacheKey untagged = key(tenant, "m@1");
        store.put(mine, entry("a", tag), Duration.ofMinutes(1)).join();
        store.put(theirs, entry("b", tag, "other"), Duration.ofMinutes(1)).join();
        store.put(untagged, entry("c"), Duration.ofMinutes(1)).join();

        assertThat(store.purge(scope(tenant, null, tag)).join()).isEqualTo(1);
        assertThat(store.get(mine).join()).isEmpty();
        assertThat(store.get(theirs).join()).isPresent();
        assertThat(RedisTestServer.command(uri, "SCARD", RedisKeys.tagKey(tag))).isEqualTo(":1");

        assertThat(store.purge(scope(null, null, tag)).join()).isEqualTo(1);
        assertThat(store.get(theirs).join()).isEmpty();
        assertThat(store.get(untagged).join()).isPresent();
        assertThat(RedisTestServer.command(uri, "EXISTS", RedisKeys.tagKey(tag))).isEqualTo(":0");
        store.purge(scope(tenant, null, null)).join();
    }

    @Test
    void put_tagSet_expiresWithTheLongestEntry() {
        String tag = "t-" + randomTenant();
        String tagKey = RedisKeys.tagKey(tag);
        store.put(key(tenant, "m"), entry("a", tag), Duration.ofSeconds(60)).join();
        long first = Long.parseLong(RedisTestServer.command(uri, "PTTL", tagKey).substring(1));
        assertThat(first).isBetween(55_000L, 61_000L);
        store.put(key(tenant, "m"), entry("b", tag), Duration.ofMillis(200)).join();
        long after = Long.parseLong(RedisTestServer.command(uri, "PTTL", tagKey).substring(1));
        assertThat(after).as("a shorter entry never shortens the set").isGreaterThan(55_000L);

        String shortTag = "s-" + randomTenant();
        store.put(key(tenant, "m"), entry("c", shortTag), Duration.ofMillis(100)).join();
        await(Duration.ofSeconds(5), () -> RedisTestServer.command(uri, "EXISTS", RedisKeys.tagKey(shortTag)).equals(":0"));
        store.purge(scope(tenant, null, null)).join();
    }

    @Test
    void purge_manyKeys_scansInBatches() {
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        for (int i = 0; i < 2500; i++) {
            pending.add(store.put(key(tenant, "m@1"), entry("x" + i), Duration.ofMinutes(1)));
            if (pending.size() == 100) { // well under the bounded request queue (1000), and kind to a loaded machine
                pending.forEach(CompletableFuture::join);
                pending.clear();
            }
        }
        store.put(key(tenant, "m@1"), entry("last"), Duration.ofMinutes(1)).join();
        assertThat(store.purge(scope(tenant, null, null)).join()).isEqualTo(2501);
    }
}
