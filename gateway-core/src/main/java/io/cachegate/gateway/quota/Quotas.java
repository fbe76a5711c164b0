package io.cachegate.gateway.quota;

import io.cachegate.config.ExactCacheSettings;
import io.cachegate.config.ExactStore;
import io.cachegate.config.Tenant;
import io.cachegate.config.Ticker;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.github.bucket4j.TimeMeter;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every tenant's limits, kept apart from the policy generations (like the coalescer): a reload calls
 * {@link #configure}, which re-configures each tenant's buckets in place instead of building new, full ones.
 * Buckets live in this gateway, or in Redis when the exact store is Redis (then every gateway on that Redis
 * shares them), with this gateway's own as the fallback.
 */
public final class Quotas implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Quotas.class);

    /** Makes a tenant's buckets: local ones, or shared ones over a local fallback. */
    interface BucketFactory {
        LocalBucket local(BucketShape shape);

        LimitBucket bucket(String tenant, String kind, BucketShape shape, LocalBucket local);
    }

    private final Map<String, TenantQuota> byTenant = new ConcurrentHashMap<>();
    private final SharedBuckets shared;
    private final BucketFactory factory;

    private Quotas(SharedBuckets shared, Ticker ticker) {
        this.shared = shared;
        TimeMeter clock = new TickerTimeMeter(ticker);
        this.factory = new BucketFactory() {
            @Override
            public LocalBucket local(BucketShape shape) {
                return new LocalBucket(shape, clock);
            }

            @Override
            public LimitBucket bucket(String tenant, String kind, BucketShape shape, LocalBucket local) {
                return shared == null ? local
                        : new SharedBucket(shared, "cachegate:quota:" + tenant + ":" + kind, shape, local);
            }
        };
    }

    /** Buckets in this gateway only, on {@code ticker}'s clock. */
    public static Quotas local(Ticker ticker) {
        return new Quotas(null, ticker);
    }

    /**
     * Shared through Redis when {@code exact} stores in Redis (redis or tiered), else local. Redis Cluster URIs
     * are not supported for shared limits: those gateways limit on their own, with a warning.
     */
    public static Quotas forStore(ExactCacheSettings exact, GatewayMetrics metrics, Ticker ticker) {
        if (exact.store() == ExactStore.MEMORY) {
            return local(ticker);
        }
        if (exact.redisUri().strip().contains("-cluster://")) {
            log.warn("tenant limits are per gateway: sharing them through a Redis Cluster is not supported");
            return local(ticker);
        }
        // Shared buckets compare wall-clock readings across gateways: Bucket4j's own (system) clock, not the ticker.
        return new Quotas(new SharedBuckets(exact.redisUri(), exact.timeout(), exact.redisQueueSize(),
                metrics), Ticker.system());
    }

    /** Applies the tenants' limits; a tenant left without limits (or out of the policy) is forgotten. */
    public void configure(List<Tenant> tenants) {
        Set<String> limited = new HashSet<>();
        for (Tenant tenant : tenants) {
            if (tenant.limits().limited()) {
                limited.add(tenant.id());
                byTenant.computeIfAbsent(tenant.id(), id -> new TenantQuota(id, factory)).configure(tenant.limits());
            }
        }
        byTenant.keySet().retainAll(limited);
    }

    /**
     * A request head of {@code tenant} under its limits: a place under {@code max_concurrent} and a request from
     * its bucket, or a refusal when either is used up (a shared bucket still answering decides later, in
     * {@link QuotaStage}); null when the tenant has no limits.
     */
    public HeadPass atHead(String tenant) {
        TenantQuota quota = byTenant.get(tenant);
        if (quota == null) {
            return null;
        }
        if (!quota.enter()) {
            return HeadPass.refused(quota, QuotaStage.concurrentMessage(quota), 1);
        }
        CompletableFuture<TenantQuota.Taken> request = quota.takeRequest();
        HeadPass pass = HeadPass.granted(quota, request);
        TenantQuota.Taken taken = request.isDone() && !request.isCompletedExceptionally() ? request.join() : null;
        if (taken != null && taken.requests() != null && !taken.requests().isConsumed()) {
            pass.release();
            long nanos = taken.requests().getNanosToWaitForRefill();
            return HeadPass.refusedByRate(quota, QuotaStage.requestsMessage(quota, taken),
                    RateLimitHeaders.retryAfterSeconds(nanos), taken);
        }
        return pass;
    }

    /** The tenant's limits, or null when it has none. */
    TenantQuota of(String tenant) {
        return byTenant.get(tenant);
    }

    @Override
    public void close() {
        if (shared != null) {
            shared.close();
        }
    }

    /** Bucket4j reads time through this: the gateway's injected clock, so tests move it. */
    private record TickerTimeMeter(Ticker ticker) implements TimeMeter {
        @Override
        public long currentTimeNanos() {
            return ticker.nanos();
        }

        @Override
        public boolean isWallClockBased() {
            return false;
        }
    }
}
