package io.cachegate.gateway.quota;

import io.cachegate.config.TenantLimits;
import io.github.bucket4j.ConsumptionProbe;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One tenant's limits as they stand: its request bucket, its token bucket (either absent when unlimited) and its
 * requests in flight on this gateway. Re-configured in place on reload, so what is left of its quota, and the
 * requests it has in flight, carry over. Thread-safe: event loops read it while a reload writes it.
 */
final class TenantQuota {

    /** What one request took: each probe null when that kind is unlimited (or, for tokens, not reached). */
    record Taken(ConsumptionProbe requests, LimitBucket requestBucket, ConsumptionProbe tokens,
                 LimitBucket tokenBucket) {
    }

    private final String tenant;
    private final Quotas.BucketFactory buckets;
    private final AtomicLong inFlight = new AtomicLong();
    private volatile TenantLimits limits = TenantLimits.NONE;
    private volatile LimitBucket requests;
    private volatile LimitBucket tokens;
    private LocalBucket localRequests;
    private LocalBucket localTokens;

    TenantQuota(String tenant, Quotas.BucketFactory buckets) {
        this.tenant = tenant;
        this.buckets = buckets;
    }

    String tenant() {
        return tenant;
    }

    TenantLimits limits() {
        return limits;
    }

    /** Applies {@code next}: a bucket whose limits did not change is kept as it is; one that did keeps its level. */
    synchronized void configure(TenantLimits next) {
        if (next.equals(limits)) {
            return;
        }
        if (next.requestsPerSecond().isEmpty()) {
            localRequests = null;
            requests = null;
        } else {
            BucketShape shape = BucketShape.requests(next.requestsPerSecond().getAsLong(),
                    next.requestCapacity().getAsLong());
            localRequests = reshaped(localRequests, shape);
            requests = buckets.bucket(tenant, "requests", shape, localRequests);
        }
        if (next.tokensPerMinute().isEmpty()) {
            localTokens = null;
            tokens = null;
        } else {
            BucketShape shape = BucketShape.tokens(next.tokensPerMinute().getAsLong());
            localTokens = reshaped(localTokens, shape);
            tokens = buckets.bucket(tenant, "tokens", shape, localTokens);
        }
        limits = next;
    }

    private LocalBucket reshaped(LocalBucket bucket, BucketShape shape) {
        if (bucket == null) {
            return buckets.local(shape);
        }
        bucket.reshape(shape);
        return bucket;
    }

    /** Counts a request in; false (and nothing counted) when {@code max_concurrent} are in flight already. */
    boolean enter() {
        long max = limits.maxConcurrent().orElse(Long.MAX_VALUE);
        while (true) {
            long now = inFlight.get();
            if (now >= max) {
                return false;
            }
            if (inFlight.compareAndSet(now, now + 1)) {
                return true;
            }
        }
    }

    void leave() {
        inFlight.decrementAndGet();
    }

    long inFlight() {
        return inFlight.get();
    }

    /**
     * Takes one request and then, if that was granted, {@code estimate} tokens (at least 1: a bucket takes no
     * zero). Asynchronous only for a shared bucket.
     */
    CompletableFuture<Taken> take(long estimate) {
        return takeRequest().thenCompose(request -> takeTokens(request, estimate));
    }

    /** Takes one request from the request bucket; the tokens are not reached yet. */
    CompletableFuture<Taken> takeRequest() {
        LimitBucket r = requests;
        LimitBucket t = tokens;
        if (r == null) {
            return CompletableFuture.completedFuture(new Taken(null, null, null, t));
        }
        return r.tryConsume(1).thenApply(rp -> new Taken(rp, r, null, t));
    }

    /** After {@code request} (what {@link #takeRequest} took), {@code estimate} tokens unless it was refused. */
    CompletableFuture<Taken> takeTokens(Taken request, long estimate) {
        LimitBucket t = tokens;
        ConsumptionProbe rp = request.requests();
        if (t == null || rp != null && !rp.isConsumed()) {
            return CompletableFuture.completedFuture(new Taken(rp, request.requestBucket(), null, t));
        }
        return t.tryConsume(Math.max(1, estimate)).thenApply(tp -> new Taken(rp, request.requestBucket(), tp, t));
    }
}
