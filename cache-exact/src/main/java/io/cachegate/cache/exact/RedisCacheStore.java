package io.cachegate.cache.exact;

import io.cachegate.config.Ticker;
import io.lettuce.core.ExpireArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shared store: entries in Redis through pipelined Lettuce connections (one, or one per event loop when
 * Lettuce runs on the gateway's loops: see {@link CacheStores}). It fails open: while
 * Redis is down, slow or not yet connected, every operation completes exceptionally within the
 * command timeout (never blocks, never queues without bound), {@link StoreHealth} counts it, and the
 * client reconnects in the background. Lookups and writes pass its {@link StoreCircuit}: while enough of the recent
 * ones failed or were slow the store is degraded and they fail at once without reaching Redis; their command timeout
 * follows measured latency ({@link AdaptiveTimeout}). Purges and their invalidations always go to Redis. Futures complete on the I/O thread of the connection used: with
 * Lettuce on the gateway's loops, a command issued on a loop uses that loop's connection, so its answer
 * completes on the same thread and the caller need not hop back. Needs Redis 7.0+ ({@code PEXPIRE NX/GT}).
 * Cluster URIs ({@code redis-cluster://h1:7000,h2:7000}) use Lettuce's cluster client (a purge's SCAN walks every
 * master), Sentinel URIs ({@code redis-sentinel://h1:26379,h2:26379#master}) follow the master the sentinels name;
 * both are covered by integration tests on local processes, failovers included.
 */
public final class RedisCacheStore implements TtlAwareCacheStore {

    private static final Logger LOG = LoggerFactory.getLogger(RedisCacheStore.class);
    // A tag's set outlives each of its entries a little, so a purge by tag never misses a live entry.
    private static final long TAG_SLACK_MILLIS = 1000;

    private final RedisConnector connector;
    private final ClientResources resources;
    private final EntryCodec codec;
    private final EntrySigner signer;
    private final StoreHealth health;
    private final RateLimitedLog warnings;
    private final String target;
    private final Duration warnInterval;
    private final RedisConnections connections;
    private final StoreCircuit circuit;

    private RedisCacheStore(RedisConnector connector, StoreCircuit circuit, ClientResources resources, EntryCodec codec,
                            EntrySigner signer, RedisStoreOptions options, StoreHealth health, String target,
                            int connections) {
        this.circuit = circuit;
        this.connector = connector;
        this.resources = resources;
        this.codec = codec;
        this.signer = signer;
        this.health = health;
        this.warnings = new RateLimitedLog(LOG, options.warnInterval());
        this.target = target;
        this.warnInterval = options.warnInterval();
        this.connections = new RedisConnections(connector, resources, health, warnings, target, connections);
    }

    /**
     * Starts connecting to {@code uri} and returns at once; until connected, operations fail (a miss).
     * The store takes ownership of {@code resources} and shuts them down on {@link #close()}.
     */
    public static RedisCacheStore connect(String uri, ClientResources resources, EntryCodec codec,
                                          RedisStoreOptions options, StoreHealth health) {
        return connect(uri, resources, codec, EntrySigner.none(), options, health);
    }

    /** As above, every value signed and checked by {@code signer} (see {@link EntrySigner}). */
    public static RedisCacheStore connect(String uri, ClientResources resources, EntryCodec codec, EntrySigner signer,
                                          RedisStoreOptions options, StoreHealth health) {
        return connect(uri, resources, codec, signer, options, health, 1);
    }

    /**
     * As above with {@code connections} connections, meant as one per event loop of {@code resources}' group: a
     * caller on a loop then sends on, and is answered on, its own loop's connection.
     */
    public static RedisCacheStore connect(String uri, ClientResources resources, EntryCodec codec, EntrySigner signer,
                                          RedisStoreOptions options, StoreHealth health, int connections) {
        String target = redact(uri);
        Ticker ticker = Ticker.system();
        AdaptiveTimeout timeout = new AdaptiveTimeout(options.commandTimeout(), options.health().timeoutMax(),
                options.health().timeoutMultiple(), ticker, health::commandTimeoutNanos);
        StoreCircuit circuit = new StoreCircuit(options.health(), timeout, ticker, health, target);
        RedisConnector connector = RedisConnector.create(uri, resources, options, circuit::timeoutNanos);
        RedisCacheStore store = new RedisCacheStore(connector, circuit, resources, codec, signer, options, health,
                target, connections);
        store.connections.open();
        return store;
    }

    public StoreHealth health() {
        return health;
    }

    @Override
    public CompletableFuture<Optional<CacheEntry>> get(CacheKey key) {
        int slot = connections.slot();
        RedisClusterAsyncCommands<String, byte[]> c = connections.commands(slot);
        if (c == null) {
            return notConnected();
        }
        long started = circuit.admit();
        if (started == StoreCircuit.REFUSED) {
            return refused();
        }
        return guard(c.get(key.redisKey()), slot, started)
                .thenApply(bytes -> bytes == null ? Optional.<CacheEntry>empty() : decode(c, key, bytes));
    }

    @Override
    public CompletableFuture<Optional<Timed>> getWithTtl(CacheKey key) {
        int slot = connections.slot();
        RedisClusterAsyncCommands<String, byte[]> c = connections.commands(slot);
        if (c == null) {
            return notConnected();
        }
        long started = circuit.admit();
        if (started == StoreCircuit.REFUSED) {
            return refused();
        }
        // Both go out on the one connection before either answer arrives: one round trip, and one operation for the
        // health decision (the GET's outcome stands for both).
        CompletableFuture<byte[]> value = guard(c.get(key.redisKey()), slot, started);
        CompletableFuture<Long> pttl = guard(c.pttl(key.redisKey()), slot);
        return value.thenCombine(pttl, (bytes, millis) -> {
            if (bytes == null) {
                return Optional.<Timed>empty();
            }
            // -2: expired between GET and PTTL; serve it this once but let no tier keep a copy.
            Duration remaining = millis == null || millis < 0 ? Duration.ZERO : Duration.ofMillis(millis);
            return decode(c, key, bytes).map(entry -> new Timed(entry, remaining));
        });
    }

    @Override
    public CompletableFuture<Void> put(CacheKey key, CacheEntry entry, Duration ttl) {
        if (ttl.isZero() || ttl.isNegative()) {
            throw new IllegalArgumentException("ttl must be positive, was " + ttl);
        }
        RedisClusterAsyncCommands<String, byte[]> c = connections.commands(connections.slot());
        if (c == null) {
            return notConnected();
        }
        long started = circuit.admit();
        if (started == StoreCircuit.REFUSED) {
            return refused();
        }
        String redisKey = key.redisKey();
        long millis = Math.max(1, ttl.toMillis());
        List<CompletableFuture<?>> sent = new ArrayList<>(4 + 3 * entry.tags().size());
        byte[] value;
        try {
            value = signer.sign(redisKey, codec.encode(entry));
        } catch (RuntimeException e) {
            circuit.abandoned(); // never sent: it says nothing of Redis
            throw e;
        }
        sent.add(c.set(redisKey, value, SetArgs.Builder.px(millis)).toCompletableFuture());
        byte[] member = redisKey.getBytes(StandardCharsets.UTF_8);
        for (String tag : entry.tags()) {
            addToSet(c, RedisKeys.tagKey(tag), member, millis, sent);
        }
        if (!entry.userDigest().isEmpty()) {
            addToSet(c, RedisKeys.userKey(entry.userDigest()), member, millis, sent);
        }
        return guard(CompletableFuture.allOf(sent.toArray(CompletableFuture<?>[]::new)), -1, started);
    }

    /** Files {@code member} in the index set {@code setKey} (a tag's, a user's), which outlives it a little. */
    private static void addToSet(RedisClusterAsyncCommands<String, byte[]> c, String setKey, byte[] member,
                                 long millis, List<CompletableFuture<?>> sent) {
        sent.add(c.sadd(setKey, member).toCompletableFuture());
        // NX gives a new set its first expiry (GT alone treats "no expiry" as infinite and would
        // leave it persistent); GT then only ever lengthens it to cover the longest-lived entry.
        sent.add(c.pexpire(setKey, millis + TAG_SLACK_MILLIS, ExpireArgs.Builder.nx()).toCompletableFuture());
        sent.add(c.pexpire(setKey, millis + TAG_SLACK_MILLIS, ExpireArgs.Builder.gt()).toCompletableFuture());
    }

    @Override
    public CompletableFuture<Long> purge(PurgeScope scope) {
        RedisClusterAsyncCommands<String, byte[]> c = connections.commands(connections.slot());
        if (c == null) {
            return notConnected();
        }
        RedisPurge purge = new RedisPurge(c, scope, codec, signer, this::unavailable);
        if (scope.user().isPresent()) {
            purge.scanUser(ScanCursor.INITIAL);
        } else if (scope.all() || scope.tag().isEmpty()) {
            purge.scan(ScanCursor.INITIAL);
        } else {
            purge.scanTag(ScanCursor.INITIAL);
        }
        return purge.result.whenComplete((n, e) -> {
            if (e != null) {
                fail(e);
            }
        });
    }

    /** PUBLISH on the store's connection (the L1 invalidations of a tiered store); completes with the receivers. */
    CompletableFuture<Long> publish(String channel, byte[] message) {
        RedisClusterAsyncCommands<String, byte[]> c = connections.commands(connections.slot());
        return c == null ? notConnected() : guard(c.publish(channel, message), -1);
    }

    RedisConnector connector() {
        return connector;
    }

    ClientResources resources() {
        return resources;
    }

    /** The URI without its password, for logs. */
    String target() {
        return target;
    }

    Duration warnInterval() {
        return warnInterval;
    }

    /** True while connected and not degraded (the same as {@code health().available()}). */
    public boolean available() {
        return health.available();
    }

    /** True while connected, degraded or not. */
    boolean connected() {
        return health.connected();
    }

    /** Where the store stands in its health decision. */
    StoreState state() {
        return circuit.state();
    }

    @Override
    public void close() {
        health.connected(false);
        // The timer drives Lettuce's reconnects: stop it first, so none starts on a loop shutting down.
        resources.timer().stop();
        connections.close();
        // Quiet periods let a connection attempt already under way finish registering and be closed
        // (its channel buffers released) before the event loops stop.
        RedisShutdown.of(connector.client(), 100, "redis cache " + target);
        resources.shutdown(100, 2000, TimeUnit.MILLISECONDS).awaitUninterruptibly(3000);
    }

    private Optional<CacheEntry> decode(RedisClusterAsyncCommands<String, byte[]> c, CacheKey key, byte[] bytes) {
        try {
            return Optional.of(codec.decode(signer.verify(key.redisKey(), bytes)));
        } catch (CorruptEntryException e) {
            // A corrupt or badly signed entry is a miss, and is removed so the next answer can replace it. The
            // message names the check that failed, never the entry's content.
            fail(e);
            c.unlink(key.redisKey());
            return Optional.empty();
        }
    }

    /**
     * The outcome of {@code stage}, failures turned into a {@link StoreUnavailableException}. The
     * timeout is Lettuce's own (TimeoutOptions on the fine-ticking timer of {@link CacheStores}): a
     * timer of our own per command cost two cross-thread wake-ups of the executor on every lookup. An answer
     * on {@code slot} (-1: none to learn from) tells which thread that slot's connection answers on.
     */
    private <T> CompletableFuture<T> guard(CompletionStage<T> stage, int slot) {
        return guard(stage, slot, StoreCircuit.REFUSED);
    }

    /** As above, the outcome also told to the health decision when {@code started} came from {@link StoreCircuit#admit}. */
    private <T> CompletableFuture<T> guard(CompletionStage<T> stage, int slot, long started) {
        CompletableFuture<T> result = new CompletableFuture<>();
        stage.whenComplete((value, error) -> {
            connections.answeredHere(slot);
            if (started != StoreCircuit.REFUSED) {
                circuit.ended(started, error == null ? null : unwrap(error));
            }
            if (error == null) {
                result.complete(value);
            } else {
                StoreUnavailableException e = unavailable(error);
                fail(e);
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    private <T> CompletableFuture<T> notConnected() {
        StoreUnavailableException e = new StoreUnavailableException("redis cache " + target + " not connected");
        fail(e);
        return CompletableFuture.failedFuture(e);
    }

    /** Refused by the health decision: fails at once, without touching Redis (a miss for the caller). */
    private <T> CompletableFuture<T> refused() {
        StoreUnavailableException e = new StoreUnavailableException("redis cache " + target + " " + circuit.refusal()
                + ": failing fast");
        fail(e);
        return CompletableFuture.failedFuture(e);
    }

    private void fail(Throwable error) {
        health.recordError(unwrap(error));
        warnings.warn("redis cache " + target + " failed, requests bypass it: " + rootMessage(error));
    }

    private StoreUnavailableException unavailable(Throwable error) {
        Throwable cause = unwrap(error);
        return cause instanceof StoreUnavailableException s ? s
                : new StoreUnavailableException("redis cache " + target + ": " + rootMessage(cause), cause);
    }

    private static Throwable unwrap(Throwable error) {
        Throwable e = error;
        while (e instanceof CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    static String rootMessage(Throwable error) {
        Throwable e = unwrap(error);
        return e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    /** The URI without its password, for logs. */
    static String redact(String uri) {
        return uri.replaceAll("//[^@/]*@", "//***@");
    }
}
