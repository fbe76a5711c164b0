package io.cachegate.cache.exact;

import io.lettuce.core.ExpireArgs;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shared store: entries in Redis through pipelined Lettuce connections (one, or one per event loop when
 * Lettuce runs on the gateway's loops: see {@link CacheStores}). It fails open: while
 * Redis is down, slow or not yet connected, every operation completes exceptionally within the
 * command timeout (never blocks, never queues without bound), {@link StoreHealth} counts it, and the
 * client reconnects in the background. Futures complete on the I/O thread of the connection used: with
 * Lettuce on the gateway's loops, a command issued on a loop uses that loop's connection, so its answer
 * completes on the same thread and the caller need not hop back. Needs Redis 7.0+ ({@code PEXPIRE NX/GT}).
 * Cluster URIs ({@code redis-cluster://h1:7000,h2:7000}) use Lettuce's cluster client; only standalone
 * Redis is covered by the integration tests.
 */
public final class RedisCacheStore implements TtlAwareCacheStore {

    private static final Logger LOG = LoggerFactory.getLogger(RedisCacheStore.class);
    // A tag's set outlives each of its entries a little, so a purge by tag never misses a live entry.
    private static final long TAG_SLACK_MILLIS = 1000;
    private static final long MAX_CONNECT_BACKOFF_MILLIS = 1000;

    private final RedisConnector connector;
    private final ClientResources resources;
    private final EntryCodec codec;
    private final EntrySigner signer;
    private final StoreHealth health;
    private final RateLimitedLog warnings;
    private final String target;
    // A slot is null until its first connect succeeds; from then on Lettuce reconnects the same connection.
    private final AtomicReferenceArray<RedisConnector.Connected> slots;
    // The thread each slot's answers last arrived on: its channel's event loop, learned from the answers
    // themselves (so it follows a reconnect onto another loop). A caller on that thread uses that slot.
    private final AtomicReferenceArray<Thread> owners;
    private volatile boolean closed;

    private RedisCacheStore(RedisConnector connector, ClientResources resources, EntryCodec codec, EntrySigner signer,
                            RedisStoreOptions options, StoreHealth health, String target, int connections) {
        this.slots = new AtomicReferenceArray<>(connections);
        this.owners = new AtomicReferenceArray<>(connections);
        this.connector = connector;
        this.resources = resources;
        this.codec = codec;
        this.signer = signer;
        this.health = health;
        this.warnings = new RateLimitedLog(LOG, options.warnInterval());
        this.target = target;
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
        if (connections < 1) {
            throw new IllegalArgumentException("connections must be positive, was " + connections);
        }
        RedisConnector connector = RedisConnector.create(uri, resources, options);
        RedisCacheStore store = new RedisCacheStore(connector, resources, codec, signer, options, health, redact(uri),
                connections);
        connector.client().addListener(store.new StateListener());
        for (int slot = 0; slot < connections; slot++) {
            store.connectLoop(slot, 0);
        }
        return store;
    }

    public StoreHealth health() {
        return health;
    }

    @Override
    public CompletableFuture<Optional<CacheEntry>> get(CacheKey key) {
        int slot = slot();
        RedisClusterAsyncCommands<String, byte[]> c = commands(slot);
        if (c == null) {
            return notConnected();
        }
        return guard(c.get(key.redisKey()), slot)
                .thenApply(bytes -> bytes == null ? Optional.<CacheEntry>empty() : decode(c, key, bytes));
    }

    @Override
    public CompletableFuture<Optional<Timed>> getWithTtl(CacheKey key) {
        int slot = slot();
        RedisClusterAsyncCommands<String, byte[]> c = commands(slot);
        if (c == null) {
            return notConnected();
        }
        // Both go out on the one connection before either answer arrives: one round trip.
        CompletableFuture<byte[]> value = guard(c.get(key.redisKey()), slot);
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
        RedisClusterAsyncCommands<String, byte[]> c = commands(slot());
        if (c == null) {
            return notConnected();
        }
        String redisKey = key.redisKey();
        long millis = Math.max(1, ttl.toMillis());
        List<CompletableFuture<?>> sent = new ArrayList<>(4 + 3 * entry.tags().size());
        sent.add(c.set(redisKey, signer.sign(redisKey, codec.encode(entry)), SetArgs.Builder.px(millis))
                .toCompletableFuture());
        byte[] member = redisKey.getBytes(StandardCharsets.UTF_8);
        for (String tag : entry.tags()) {
            addToSet(c, RedisKeys.tagKey(tag), member, millis, sent);
        }
        if (!entry.userDigest().isEmpty()) {
            addToSet(c, RedisKeys.userKey(entry.userDigest()), member, millis, sent);
        }
        return guard(CompletableFuture.allOf(sent.toArray(CompletableFuture<?>[]::new)), -1);
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
        RedisClusterAsyncCommands<String, byte[]> c = commands(slot());
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

    /** True while connected (the same as {@code health().available()}). */
    public boolean available() {
        return health.available();
    }

    @Override
    public void close() {
        closed = true;
        health.available(false);
        // The timer drives Lettuce's reconnects: stop it first, so none starts on a loop shutting down.
        resources.timer().stop();
        for (int i = 0; i < slots.length(); i++) {
            RedisConnector.Connected c = slots.get(i);
            if (c != null) {
                c.connection().close();
            }
        }
        // Quiet periods let a connection attempt already under way finish registering and be closed
        // (its channel buffers released) before the event loops stop.
        connector.client().shutdown(Duration.ofMillis(100), Duration.ofSeconds(2));
        resources.shutdown(100, 2000, TimeUnit.MILLISECONDS).awaitUninterruptibly(3000);
    }

    /** The slot of the calling thread's own connection, or, for a thread that owns none, one spread by its identity. */
    private int slot() {
        int n = slots.length();
        if (n == 1) {
            return 0;
        }
        Thread t = Thread.currentThread();
        for (int i = 0; i < n; i++) {
            if (owners.get(i) == t) {
                return i;
            }
        }
        return Math.floorMod(System.identityHashCode(t), n);
    }

    /** The commands of {@code slot}, of another connected slot while that one is not yet connected, or null. */
    private RedisClusterAsyncCommands<String, byte[]> commands(int slot) {
        if (closed) {
            return null;
        }
        RedisConnector.Connected c = slots.get(slot);
        for (int i = 1; c == null && i < slots.length(); i++) {
            c = slots.get((slot + i) % slots.length());
        }
        return c == null ? null : c.commands();
    }

    private boolean anyConnected() {
        for (int i = 0; i < slots.length(); i++) {
            if (slots.get(i) != null) {
                return true;
            }
        }
        return false;
    }

    /** Tries a slot's first connection until it succeeds; after that, Lettuce's auto-reconnect takes over. */
    private void connectLoop(int slot, int attempt) {
        if (closed) {
            return;
        }
        connector.connect().whenComplete((c, error) -> {
            if (error != null) {
                warnings.warn("redis cache " + target + " unreachable, requests bypass it: " + rootMessage(error));
                long delay = Math.min(MAX_CONNECT_BACKOFF_MILLIS, 25L << Math.min(attempt, 10));
                if (!closed) {
                    resources.eventExecutorGroup().schedule(() -> connectLoop(slot, attempt + 1), delay,
                            TimeUnit.MILLISECONDS);
                }
                return;
            }
            if (closed) {
                c.connection().closeAsync();
                return;
            }
            slots.set(slot, c);
            health.available(true);
            LOG.info("redis cache {} connected (connection {} of {})", target, slot + 1, slots.length());
        });
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
        CompletableFuture<T> result = new CompletableFuture<>();
        stage.whenComplete((value, error) -> {
            if (slot >= 0 && slots.length() > 1) {
                Thread t = Thread.currentThread();
                if (owners.get(slot) != t) {
                    owners.set(slot, t);
                }
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

    private static String rootMessage(Throwable error) {
        Throwable e = unwrap(error);
        return e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    /** The URI without its password, for logs. */
    static String redact(String uri) {
        return uri.replaceAll("//[^@/]*@", "//***@");
    }

    private final class StateListener implements RedisConnectionStateListener {
        @Override
        public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
            if (!closed && anyConnected()) {
                health.available(true);
            }
        }

        @Override
        public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
            health.available(false);
            if (!closed) {
                warnings.warn("redis cache " + target + " disconnected, requests bypass it until it reconnects");
            }
        }
    }
}
