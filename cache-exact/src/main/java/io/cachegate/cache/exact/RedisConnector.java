package io.cachegate.cache.exact;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Builds the Lettuce client for a URI (standalone and Sentinel through {@link RedisClient},
 * {@code redis-cluster://} through {@link RedisClusterClient}) with the options that make it fail
 * fast, and opens its one connection.
 */
final class RedisConnector {

    /** String keys (readable, SCAN-able) and raw byte values (our encoded entries). */
    static final RedisCodec<String, byte[]> CODEC = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);

    private static final Set<String> PURGE_COMMANDS = Set.of("SCAN", "SSCAN", "UNLINK", "SREM");

    private final AbstractRedisClient client;
    private final Supplier<CompletableFuture<Connected>> connect;

    private RedisConnector(AbstractRedisClient client, Supplier<CompletableFuture<Connected>> connect) {
        this.client = client;
        this.connect = connect;
    }

    /** A connection and its async command API (the part common to standalone and Cluster). */
    record Connected(StatefulConnection<String, byte[]> connection, RedisClusterAsyncCommands<String, byte[]> commands) {
    }

    static RedisConnector create(String uri, ClientResources resources, RedisStoreOptions options) {
        String text = uri.strip();
        ClientOptions clientOptions = clientOptions(options);
        if (text.startsWith("redis-cluster://") || text.startsWith("rediss-cluster://")) {
            RedisClusterClient cluster = RedisClusterClient.create(resources, clusterSeeds(text));
            cluster.setOptions(ClusterClientOptions.builder(clientOptions)
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                            .enablePeriodicRefresh(Duration.ofSeconds(30))
                            .build())
                    .build());
            return new RedisConnector(cluster, () -> cluster.connectAsync(CODEC)
                    .thenApply(c -> new Connected(c, c.async())));
        }
        RedisURI redisUri = RedisURI.create(text);
        RedisClient client = RedisClient.create(resources, redisUri);
        client.setOptions(clientOptions);
        return new RedisConnector(client, () -> client.connectAsync(CODEC, redisUri).toCompletableFuture()
                .thenApply(c -> new Connected(c, c.async())));
    }

    AbstractRedisClient client() {
        return client;
    }

    CompletableFuture<Connected> connect() {
        return connect.get();
    }

    private static ClientOptions clientOptions(RedisStoreOptions options) {
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
                // The one command timeout: it fails the caller (a miss) and frees a command Redis never
                // answers, so a hung server cannot fill the request queue for good. Its precision is
                // the tick of the resources' timer (CacheStores).
                .timeoutOptions(TimeoutOptions.builder().timeoutSource(new CommandTimeouts(options)).build())
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
        private final long commandMillis;
        private final long purgeMillis;

        CommandTimeouts(RedisStoreOptions options) {
            this.commandMillis = Math.max(1, options.commandTimeout().toMillis());
            this.purgeMillis = Math.max(1, options.purgeCommandTimeout().toMillis());
        }

        @Override
        public long getTimeout(RedisCommand<?, ?, ?> command) {
            return PURGE_COMMANDS.contains(command.getType().toString()) ? purgeMillis : commandMillis;
        }

        @Override
        public TimeUnit getTimeUnit() {
            return TimeUnit.MILLISECONDS;
        }
    }
}
