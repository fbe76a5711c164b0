package io.cachegate.gateway.quota;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.distributed.AsyncBucketProxy;
import io.github.bucket4j.distributed.proxy.AsyncProxyManager;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A tenant's bucket in Redis, shared by every gateway on the same limits. Fails open: when Redis is away,
 * errs or is slower than its bound, the gateway's own bucket for the tenant decides, so the tenant is still
 * limited (per gateway) and never refused or delayed because of Redis; each such decision is counted.
 */
final class SharedBucket implements LimitBucket {

    private final SharedBuckets redis;
    private final byte[] key;
    private final BucketConfiguration configuration;
    private final LocalBucket fallback;
    private final long capacity;
    private AsyncProxyManager<byte[]> proxiedBy;
    private AsyncBucketProxy proxy;

    SharedBucket(SharedBuckets redis, String key, BucketShape shape, LocalBucket fallback) {
        this.redis = redis;
        this.key = (key + ":" + shape.id()).getBytes(StandardCharsets.UTF_8);
        this.configuration = BucketConfiguration.builder().addLimit(shape.bandwidth()).build();
        this.fallback = fallback;
        this.capacity = shape.capacity();
    }

    @Override
    public CompletableFuture<ConsumptionProbe> tryConsume(long tokens) {
        AsyncBucketProxy remote = proxy();
        if (remote == null) {
            redis.metrics().requests().quotaFailOpen();
            return fallback.tryConsume(tokens);
        }
        return remote.tryConsumeAndReturnRemaining(tokens)
                .orTimeout(2 * redis.timeout().toNanos(), TimeUnit.NANOSECONDS)
                .handle((probe, error) -> {
                    if (error == null) {
                        return probe;
                    }
                    redis.metrics().requests().quotaFailOpen();
                    return fallback.consume(tokens);
                });
    }

    @Override
    public void adjust(long tokens) {
        AsyncBucketProxy remote = proxy();
        if (remote == null) {
            fallback.adjust(tokens);
        } else if (tokens > 0) {
            remote.consumeIgnoringRateLimits(tokens);
        } else if (tokens < 0) {
            remote.addTokens(-tokens);
        }
    }

    @Override
    public long capacity() {
        return capacity;
    }

    /** The remote bucket, built again once per connection; null while Redis is not connected. */
    private synchronized AsyncBucketProxy proxy() {
        AsyncProxyManager<byte[]> manager = redis.manager();
        if (manager == null) {
            return null;
        }
        if (manager != proxiedBy) {
            proxy = manager.builder().build(key, () -> CompletableFuture.completedFuture(configuration));
            proxiedBy = manager;
        }
        return proxy;
    }
}
