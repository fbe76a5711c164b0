package io.cachegate.cache.exact;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.protocol.ConnectionIntent;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Builds the Lettuce client for a URI (standalone and Sentinel through {@link RedisClient},
 * {@code redis-cluster://} through {@link RedisClusterClient}) with the options that make it fail
 * fast, and opens its one connection (and, for a tiered store, one pub/sub connection).
 */
final class RedisConnector {

    /** String keys (readable, SCAN-able) and raw byte values (our encoded entries). */
    static final RedisCodec<String, byte[]> CODEC = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);

    // PUBLISH too: it tells the other gateways' L1s about a purge or an overwrite, off the request path, and a purge
    // that could not tell them fails.
    private static final Set<String> PURGE_COMMANDS = Set.of("SCAN", "SSCAN", "UNLINK", "SREM", "PUBLISH");

    /** The longest wait between two connect attempts of a connection that never came up. */
    private static final long MAX_CONNECT_BACKOFF_MILLIS = 1000;

    private final AbstractRedisClient client;
    private final Supplier<CompletableFuture<Connected>> connect;
    private final Supplier<CompletableFuture<StatefulRedisPubSubConnection<String, byte[]>>> connectPubSub;
    /** Null on a Cluster: tracking is per node there, and a node's keys move (see {@link RedisTracking}). */
    private final Supplier<CompletableFuture<StatefulRedisConnection<String, byte[]>>> connectTracking;

    private RedisConnector(AbstractRedisClient client, Supplier<CompletableFuture<Connected>> connect,
                           Supplier<CompletableFuture<StatefulRedisPubSubConnection<String, byte[]>>> connectPubSub,
                           Supplier<CompletableFuture<StatefulRedisConnection<String, byte[]>>> connectTracking) {
        this.client = client;
        this.connect = connect;
        this.connectPubSub = connectPubSub;
        this.connectTracking = connectTracking;
    }

    /** A connection and its async command API (the part common to standalone and Cluster). */
    record Connected(StatefulConnection<String, byte[]> connection, RedisClusterAsyncCommands<String, byte[]> commands) {
    }

    /** With the fixed command timeout of {@code options}. */
    static RedisConnector create(String uri, ClientResources resources, RedisStoreOptions options) {
        long fixed = Math.max(1, options.commandTimeout().toNanos());
        return create(uri, resources, options, () -> fixed);
    }

    /** With the command timeout {@code commandTimeoutNanos} gives when each command is sent (purges keep theirs). */
    static RedisConnector create(String uri, ClientResources resources, RedisStoreOptions options,
                                 LongSupplier commandTimeoutNanos) {
        String text = uri.strip();
        ClientOptions clientOptions = clientOptions(options, commandTimeoutNanos);
        if (text.startsWith("redis-cluster://") || text.startsWith("rediss-cluster://")) {
            RedisClusterClient cluster = RedisClusterClient.create(resources, clusterSeeds(text));
            cluster.setOptions(ClusterClientOptions.builder(clientOptions).topologyRefreshOptions(topologyRefresh()).build());
            // Lettuce's connectAsync needs the topology loaded first (else: IllegalStateException "Partitions not
            // initialized", reported as "Unable to connect to [seeds]" on every attempt): refreshPartitionsAsync
            // loads it from the seeds without blocking, and again on every later attempt until one succeeds.
            return new RedisConnector(cluster,
                    () -> cluster.refreshPartitionsAsync().toCompletableFuture()
                            .thenCompose(loaded -> cluster.connectAsync(CODEC))
                            .thenCompose(c -> openMasterConnections(c).thenApply(opened -> new Connected(c, c.async()))),
                    () -> cluster.connectPubSubAsync(CODEC).thenApply(c -> c), null);
        }
        RedisURI redisUri = RedisURI.create(text);
        RedisClient client = RedisClient.create(resources, redisUri);
        client.setOptions(clientOptions);
        // A Sentinel URI resolves the master through the sentinels on every connect and reconnect: after a
        // failover the reconnect lands on the promoted replica.
        return new RedisConnector(client,
                () -> client.connectAsync(CODEC, redisUri).toCompletableFuture().thenApply(c -> new Connected(c, c.async())),
                () -> client.connectPubSubAsync(CODEC, redisUri).toCompletableFuture(),
                () -> client.connectAsync(CODEC, redisUri).toCompletableFuture());
    }

    /**
     * Opens the connection to every master before the store (or the flight leases) report themselves connected:
     * Lettuce opens a node's connection on its first command, and commands sent while it is still opening are
     * rejected (needless misses).
     */
    static CompletableFuture<Void> openMasterConnections(StatefulRedisClusterConnection<String, ?> c) {
        List<CompletableFuture<?>> opening = new ArrayList<>();
        for (RedisClusterNode node : c.getPartitions()) {
            if (node.getRole().isUpstream()) {
                // Keyed as Lettuce's slot routing keys them (intent, host, port), so the commands find them open.
                opening.add(c.getConnectionAsync(node.getUri().getHost(), node.getUri().getPort(), ConnectionIntent.WRITE));
            }
        }
        return CompletableFuture.allOf(opening.toArray(CompletableFuture<?>[]::new));
    }

    /**
     * How a cluster client follows failovers and resharding. Lettuce 7 enables every adaptive trigger by default
     * (MOVED and ASK redirects, persistent reconnects, an uncovered slot, an unknown node). A killed master sends no
     * MOVED, so the persistent reconnect trigger is what notices it: after 3 failed reconnects (default 5) rather than
     * 5, and rate-limited to one refresh a second (default 5s: a refresh that ran before the replica was promoted
     * would hold the next one back that long, every request to the lost slots a bypass meanwhile).
     * The periodic refresh catches changes no trigger sees (a replica added, a slot migrated quietly).
     */
    private static ClusterTopologyRefreshOptions topologyRefresh() {
        return ClusterTopologyRefreshOptions.builder()
                .adaptiveRefreshTriggersTimeout(Duration.ofSeconds(1))
                .refreshTriggersReconnectAttempts(3)
                .enablePeriodicRefresh(Duration.ofSeconds(15))
                .build();
    }

    /**
     * How long to wait before connect attempt {@code attempt + 1} of a connection that has never been up (after that,
     * Lettuce reconnects it): 25 ms, doubling, at most a second. One schedule for the store's, the leases', the L1
     * invalidations' and the journal's connections.
     */
    static long connectRetryMillis(int attempt) {
        return Math.min(MAX_CONNECT_BACKOFF_MILLIS, 25L << Math.min(attempt, 10));
    }

    AbstractRedisClient client() {
        return client;
    }

    CompletableFuture<Connected> connect() {
        return connect.get();
    }

    /** A pub/sub connection of its own (a subscribed connection can send nothing else); after {@link #connect()}. */
    CompletableFuture<StatefulRedisPubSubConnection<String, byte[]>> connectPubSub() {
        return connectPubSub.get();
    }

    /** A plain connection of its own for {@link RedisTracking}; empty on a Cluster. */
    Optional<CompletableFuture<StatefulRedisConnection<String, byte[]>>> connectTracking() {
        return Optional.ofNullable(connectTracking).map(Supplier::get);
    }

    private static ClientOptions clientOptions(RedisStoreOptions options, LongSupplier commandTimeoutNanos) {
        return ClientOptions.builder()
                .autoReconnect(true)
                // Commands issued while disconnected fail at once (a miss) instead of piling up
                // in a buffer to be replayed, late and useless, after the reconnect.
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                // Lettuce's default is unbounded: a slow Redis would grow the heap without limit.
                .requestQueueSize(options.requestQueueSize())
                .socketOptions(SocketOptions.builder()
                        .connectTimeout(Duration.ofSeconds(2))
                        .keepAlive(true)
                        .build())
                // The command timeout: it fails the caller (a miss) and frees a command Redis never answers, so a
                // hung server cannot fill the request queue for good. Asked per command, so it can follow measured
                // latency (AdaptiveTimeout). Its precision is the tick of the resources' timer (CacheStores).
                .timeoutOptions(TimeoutOptions.builder()
                        .timeoutSource(new CommandTimeouts(options, commandTimeoutNanos)).build())
                .build();
    }

    /** {@code redis-cluster://[user:pass@]h1:7000,h2:7000[/...]} to one seed URI per host. */
    static List<RedisURI> clusterSeeds(String text) {
        boolean tls = text.startsWith("rediss-");
        String rest = text.substring(text.indexOf("://") + 3);
        int end = indexOfAny(rest, '/', '?');
        String suffix = end < 0 ? "" : rest.substring(end);
        String authority = end < 0 ? rest : rest.substring(0, end);
        int at = authority.lastIndexOf('@');
        String userInfo = at < 0 ? "" : authority.substring(0, at + 1);
        List<RedisURI> seeds = new ArrayList<>();
        for (String host : authority.substring(at + 1).split(",")) {
            if (!host.isBlank()) {
                seeds.add(RedisURI.create((tls ? "rediss://" : "redis://") + userInfo + host.strip() + suffix));
            }
        }
        if (seeds.isEmpty()) {
            throw new IllegalArgumentException("no host in " + text);
        }
        return seeds;
    }

    private static int indexOfAny(String s, char a, char b) {
        int i = s.indexOf(a);
        int j = s.indexOf(b);
        return i < 0 ? j : j < 0 ? i : Math.min(i, j);
    }

    private static final class CommandTimeouts extends TimeoutOptions.TimeoutSource {
        private final LongSupplier commandNanos;
        private final long purgeNanos;

        CommandTimeouts(RedisStoreOptions options, LongSupplier commandNanos) {
            this.commandNanos = commandNanos;
            this.purgeNanos = Math.max(1, options.purgeCommandTimeout().toNanos());
        }

        @Override
        public long getTimeout(RedisCommand<?, ?, ?> command) {
            return PURGE_COMMANDS.contains(command.getType().toString()) ? purgeNanos : commandNanos.getAsLong();
        }

        @Override
        public TimeUnit getTimeUnit() {
            return TimeUnit.NANOSECONDS;
        }
    }
}
