package io.cachegate.cache.exact;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link FlightLeases} in Redis: a lease is {@code SET cg:flight:<entry key> <gateway id> NX PX <ttl> GET} (one
 * round trip that also says who holds it), the end of a generation is one message on the channel
 * {@value #CHANNEL}, which every gateway subscribes to once and fans out to its waiters by key. A finished lease
 * is left as {@code done} for {@link #DONE_MARKER_MILLIS}, so a request that looked the store up just before the
 * entry was written and claims just after reads the entry instead of calling again. The lease key carries the
 * entry's hash tag (same Cluster slot); PUBLISH reaches every node of a Cluster. A lease this gateway holds is
 * renewed ({@code PEXPIRE} when the value is still its id) every {@value #RENEWALS_PER_TTL}th of its lifetime, so it
 * lapses soon after the gateway dies, not after the longest wait. Built from the store's URI with its own two
 * connections (commands, pub/sub) and resources, so the store's classes stay as they are.
 */
public final class RedisFlightLeases implements FlightLeases {

    static final String CHANNEL = "cg:flights:v1";
    static final String LEASE_PREFIX = "cg:flight:";
    static final long DONE_MARKER_MILLIS = 2_000;
    private static final String DONE = "done";
    private static final String RELEASE = """
            if redis.call('GET', KEYS[1]) == ARGV[1] then
              if ARGV[2] == 'd' then redis.call('SET', KEYS[1], 'done', 'PX', ARGV[3]) else redis.call('DEL', KEYS[1]) end
            end
            return 0""";
    private static final String RENEW = """
            if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
            return 0""";
    /** Renewals in one lease lifetime: a lease survives a few renewals lost to a Redis stall or a starved CPU. */
    static final int RENEWALS_PER_TTL = 4;
    private static final long MIN_RENEW_MILLIS = 25;
    private static final Logger LOG = LoggerFactory.getLogger(RedisFlightLeases.class);

    private final AbstractRedisClient client;
    private final ClientResources resources;
    private final RedisURI standaloneUri;
    private final String gatewayId = UUID.randomUUID().toString();
    private final int maxListeners;
    private final ConcurrentMap<String, Set<Listener>> waiting = new ConcurrentHashMap<>();
    private final AtomicInteger listenerCount = new AtomicInteger();
    /** The leases this gateway holds and renews, by lease key. */
    private final ConcurrentMap<String, Held> held = new ConcurrentHashMap<>();
    private volatile ScheduledFuture<?> renewals;
    private volatile long renewEveryMillis = Long.MAX_VALUE;
    private final RateLimitedLog warnings;
    private volatile RedisClusterAsyncCommands<String, String> commands;
    private volatile StatefulConnection<String, String> commandConnection;
    private volatile StatefulRedisPubSubConnection<String, String> pubSub;
    private volatile boolean subscribed;
    private volatile boolean closed;

    private RedisFlightLeases(AbstractRedisClient client, ClientResources resources, RedisURI standaloneUri,
                              int maxListeners, RedisStoreOptions options) {
        this.client = client;
        this.resources = resources;
        this.standaloneUri = standaloneUri;
        this.maxListeners = maxListeners;
        this.warnings = new RateLimitedLog(LOG, options.warnInterval());
    }

    /**
     * Starts connecting to {@code uri} (the exact store's) and returns at once; until connected and subscribed,
     * claims answer {@link Claim#UNAVAILABLE}.
     *
     * @param maxListeners waiters registered at once at most; beyond it {@link #listen} refuses
     */
    public static RedisFlightLeases connect(String uri, Duration commandTimeout, int maxListeners) {
        ClientResources resources = CacheStores.clientResources();
        RedisStoreOptions options = RedisStoreOptions.of(commandTimeout, Math.max(1024, maxListeners));
        AbstractRedisClient client = RedisConnector.create(uri, resources, options).client();
        RedisURI standalone = client instanceof RedisClient ? RedisURI.create(uri.strip()) : null;
        RedisFlightLeases leases = new RedisFlightLeases(client, resources, standalone, maxListeners, options);
        leases.connectLoop(0);
        return leases;
    }

    /** A lease held here: its lifetime, renewed until the flight ends or it has been held as long as allowed. */
    private record Held(long ttlMillis, long untilNanos) {
    }

    @Override
    public CompletableFuture<Claim> claim(CacheKey key, Duration ttl, Duration holdAtMost) {
        RedisClusterAsyncCommands<String, String> c = commands;
        if (c == null || closed || !subscribed || !pubSub.isOpen()) {
            return CompletableFuture.completedFuture(Claim.UNAVAILABLE);
        }
        long ttlMillis = Math.max(1, ttl.toMillis());
        String leaseKey = leaseKey(key);
        SetArgs args = SetArgs.Builder.nx().px(ttlMillis);
        return c.setGet(leaseKey, gatewayId, args).toCompletableFuture().handle((holder, error) -> {
            if (error != null) {
                warnings.warn("flight lease unavailable: " + error);
                return Claim.UNAVAILABLE;
            }
            if (holder == null) {
                held.put(leaseKey, new Held(ttlMillis, System.nanoTime() + holdAtMost.toNanos()));
                startRenewals(ttlMillis);
                return Claim.LEAD;
            }
            return holder.equals(gatewayId) ? Claim.OURS : holder.equals(DONE) ? Claim.DONE : Claim.ELSEWHERE;
        });
    }

    /** Whether this gateway holds and renews the lease of {@code key} now (for tests). */
    boolean holds(CacheKey key) {
        return held.containsKey(leaseKey(key));
    }

    /**
     * Keeps the heartbeat beating at least every {@value #RENEWALS_PER_TTL}th of {@code ttlMillis}: it starts with the
     * first lease and speeds up for a shorter one (a gateway's leases normally all have one lifetime).
     */
    private void startRenewals(long ttlMillis) {
        long every = Math.max(MIN_RENEW_MILLIS, ttlMillis / RENEWALS_PER_TTL);
        if (closed || renewEveryMillis <= every) {
            return;
        }
        synchronized (held) {
            if (closed || renewEveryMillis <= every) {
                return;
            }
            ScheduledFuture<?> slower = renewals;
            renewEveryMillis = every;
            renewals = resources.eventExecutorGroup().scheduleAtFixedRate(this::renew, every, every,
                    TimeUnit.MILLISECONDS);
            if (slower != null) {
                slower.cancel(false);
            }
        }
    }

    /** The heartbeat: every lease held here lives another ttl; one held longer than allowed is let go. */
    private void renew() {
        RedisClusterAsyncCommands<String, String> c = commands;
        if (c == null || held.isEmpty()) {
            return;
        }
        long now = System.nanoTime();
        held.forEach((leaseKey, lease) -> {
            if (now - lease.untilNanos() > 0) {
                held.remove(leaseKey, lease); // never released (its request vanished): it lapses by itself
                return;
            }
            c.eval(RENEW, ScriptOutputType.INTEGER, new String[] {leaseKey}, gatewayId,
                    Long.toString(lease.ttlMillis())).whenComplete((renewed, error) -> {
                        if (error != null) {
                            warnings.warn("flight lease not renewed: " + error);
                        } else if (renewed instanceof Long n && n == 0) {
                            held.remove(leaseKey, lease); // lapsed or taken over meanwhile: no longer ours
                        }
                    });
        });
    }

    @Override
    public void release(CacheKey key, boolean done) {
        RedisClusterAsyncCommands<String, String> c = commands;
        if (c == null || closed) {
            held.remove(leaseKey(key));
            return; // the lease expires by itself; the waiters' own bound ends their wait
        }
        String leaseKey = leaseKey(key);
        held.remove(leaseKey);
        // The word goes out once the marker is set, so a waiter told "done" finds it: on a Cluster the two commands
        // travel to different nodes, and sent together the word can overtake the marker. Published even when the
        // release failed, so the waiters look the store up now rather than at the end of their bound.
        c.eval(RELEASE, ScriptOutputType.INTEGER, new String[] {leaseKey}, gatewayId, done ? "d" : "f",
                Long.toString(DONE_MARKER_MILLIS)).whenComplete((ignored, releaseError) ->
                c.publish(CHANNEL, (done ? "d " : "f ") + key.redisKey()).whenComplete((n, error) -> {
                    if (error != null) {
                        warnings.warn("flight end not published: " + error);
                    }
                }));
    }

    @Override
    public boolean listen(CacheKey key, Listener listener) {
        if (closed || !subscribed || pubSub == null || !pubSub.isOpen()) {
            return false;
        }
        if (listenerCount.incrementAndGet() > maxListeners) {
            listenerCount.decrementAndGet();
            return false;
        }
        waiting.computeIfAbsent(key.redisKey(), k -> ConcurrentHashMap.newKeySet()).add(listener);
        return true;
    }

    @Override
    public void unlisten(CacheKey key, Listener listener) {
        waiting.computeIfPresent(key.redisKey(), (k, set) -> {
            if (set.remove(listener)) {
                listenerCount.decrementAndGet();
            }
            return set.isEmpty() ? null : set;
        });
    }

    @Override
    public int listeners() {
        return listenerCount.get();
    }

    /** The id this gateway's leases carry (one per process start). */
    public String gatewayId() {
        return gatewayId;
    }

    static String leaseKey(CacheKey key) {
        return LEASE_PREFIX + key.redisKey();
    }

    private void ended(String message) {
        if (message.length() < 3) {
            return;
        }
        boolean done = message.charAt(0) == 'd';
        Set<Listener> listeners = waiting.remove(message.substring(2));
        if (listeners == null) {
            return;
        }
        for (Listener l : listeners) {
            listenerCount.decrementAndGet();
            l.ended(done);
        }
    }

    /** Opens both connections until they succeed; after that, Lettuce reconnects them (and re-subscribes). */
    private void connectLoop(int attempt) {
        if (closed) {
            return;
        }
        CompletableFuture<StatefulConnection<String, String>> commandsReady;
        CompletableFuture<StatefulRedisPubSubConnection<String, String>> pubSubReady;
        if (client instanceof RedisClusterClient cluster) {
            // As the store's connector does: Lettuce's cluster connect needs the topology loaded first.
            CompletableFuture<Void> topology = cluster.refreshPartitionsAsync().toCompletableFuture();
            commandsReady = topology.thenCompose(loaded -> cluster.connectAsync(StringCodec.UTF8).toCompletableFuture())
                    .thenCompose(c -> RedisConnector.openMasterConnections(c).thenApply(opened -> (StatefulConnection<String, String>) c));
            pubSubReady = topology.thenCompose(loaded -> cluster.connectPubSubAsync(StringCodec.UTF8)
                    .toCompletableFuture()).thenApply(c -> c);
        } else {
            RedisClient standalone = (RedisClient) client;
            commandsReady = standalone.connectAsync(StringCodec.UTF8, standaloneUri).toCompletableFuture()
                    .thenApply(c -> c);
            pubSubReady = standalone.connectPubSubAsync(StringCodec.UTF8, standaloneUri).toCompletableFuture();
        }
        commandsReady.thenCombine(pubSubReady, (c, p) -> {
            adopt(c, p);
            return p;
        }).thenCompose(p -> p.async().subscribe(CHANNEL).toCompletableFuture()).whenComplete((ok, error) -> {
            if (error == null) {
                subscribed = true;
                return;
            }
            warnings.warn("flight leases: cannot connect yet (" + error + "); retrying");
            closeConnections();
            // One of the two may have opened while the other failed: close it, not only the adopted ones.
            commandsReady.thenAccept(StatefulConnection::closeAsync);
            pubSubReady.thenAccept(StatefulConnection::closeAsync);
            long delay = RedisConnector.connectRetryMillis(attempt);
            resources.eventExecutorGroup().schedule(() -> connectLoop(attempt + 1), delay, TimeUnit.MILLISECONDS);
        });
    }

    @SuppressWarnings("unchecked")
    private void adopt(StatefulConnection<String, String> c, StatefulRedisPubSubConnection<String, String> p) {
        commandConnection = c;
        commands = c instanceof io.lettuce.core.api.StatefulRedisConnection<?, ?> plain
                ? ((io.lettuce.core.api.StatefulRedisConnection<String, String>) plain).async()
                : ((StatefulRedisClusterConnection<String, String>) c).async();
        p.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                ended(message);
            }
        });
        pubSub = p;
        if (closed) {
            closeConnections();
        }
    }

    private void closeConnections() {
        subscribed = false;
        commands = null;
        StatefulConnection<String, String> c = commandConnection;
        if (c != null) {
            c.closeAsync();
        }
        StatefulRedisPubSubConnection<String, String> p = pubSub;
        if (p != null) {
            p.closeAsync();
        }
    }

    @Override
    public void close() {
        closed = true;
        ScheduledFuture<?> beat = renewals;
        if (beat != null) {
            beat.cancel(false);
        }
        held.clear();
        // Waiters are bounded by their own timers; dropping them here only ends those timers sooner.
        waiting.clear();
        subscribed = false;
        commands = null;
        resources.timer().stop();
        // The client closes both connections (closing them here first would make it warn about each).
        RedisShutdown.of(client, 100, "flight leases");
        resources.shutdown(100, 2000, TimeUnit.MILLISECONDS).awaitUninterruptibly(3000);
    }
}
