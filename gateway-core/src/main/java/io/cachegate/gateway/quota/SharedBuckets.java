package io.cachegate.gateway.quota;

import io.cachegate.cache.exact.RedisDns;
import io.cachegate.cache.exact.RedisShutdown;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.AsyncProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redis side of shared limits: one Lettuce connection of its own (the exact store's is not shared across
 * modules) and Bucket4j's compare-and-swap proxy manager on its async API, so no thread ever waits on Redis.
 * The connection is opened in the background; until it is up, and whenever a command fails, buckets fall back
 * to the gateway's own ({@link SharedBucket}). A failed connect is tried again at most every few seconds.
 */
final class SharedBuckets implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SharedBuckets.class);
    private static final long RECONNECT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final ClientResources resources;
    private final RedisClient client;
    private final RedisURI uri;
    private final Duration timeout;
    private final GatewayMetrics metrics;
    private final AtomicBoolean connecting = new AtomicBoolean();
    private volatile long lastAttempt = System.nanoTime() - RECONNECT_NANOS;
    private volatile StatefulRedisConnection<byte[], byte[]> connection;
    private volatile AsyncProxyManager<byte[]> manager;
    private volatile boolean closed;

    /**
     * @param timeout one Redis command's bound (the exact store's {@code cache.exact.timeout}); a limit check
     *     waits at most twice that before its local bucket decides
     * @param queueSize commands waiting for Redis at most (Lettuce's default queue is unbounded)
     */
    SharedBuckets(String redisUri, Duration timeout, int queueSize, GatewayMetrics metrics) {
        this.uri = RedisURI.create(redisUri.strip());
        this.timeout = timeout;
        this.metrics = metrics;
        this.resources = DefaultClientResources.builder().ioThreadPoolSize(1).computationThreadPoolSize(1)
                .addressResolverGroup(RedisDns.RESOLVERS).build();
        this.client = RedisClient.create(resources, uri);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .requestQueueSize(queueSize)
                .socketOptions(SocketOptions.builder().connectTimeout(Duration.ofSeconds(2)).build())
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .build());
        connectIfDue();
    }

    Duration timeout() {
        return timeout;
    }

    GatewayMetrics metrics() {
        return metrics;
    }

    /** The proxy manager, or null while Redis is not connected (a connect is then started, at most every 5 s). */
    AsyncProxyManager<byte[]> manager() {
        AsyncProxyManager<byte[]> current = manager;
        if (current == null) {
            connectIfDue();
        }
        return current;
    }

    private void connectIfDue() {
        long now = System.nanoTime();
        if (closed || now - lastAttempt < RECONNECT_NANOS || !connecting.compareAndSet(false, true)) {
            return;
        }
        lastAttempt = now;
        client.connectAsync(ByteArrayCodec.INSTANCE, uri).whenComplete((connected, error) -> {
            connecting.set(false);
            if (error != null) {
                log.warn("shared limits: Redis {} unreachable ({}); each gateway limits on its own until it is back",
                        uri.getHost() + ":" + uri.getPort(), error.toString());
                return;
            }
            if (closed) {
                connected.closeAsync();
                return;
            }
            connection = connected;
            manager = Bucket4jLettuce.casBasedBuilder(connected)
                    .requestTimeout(timeout)
                    // A bucket left alone is full again after its refill time: Redis forgets it then.
                    .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(
                            Duration.ofSeconds(10)))
                    .build().asAsync();
            log.info("shared limits: connected to Redis {}", uri.getHost() + ":" + uri.getPort());
        });
    }

    @Override
    public void close() {
        closed = true;
        // The client closes its connection (a close of our own would wait for it without a bound).
        RedisShutdown.of(client, 0, "shared limits");
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
