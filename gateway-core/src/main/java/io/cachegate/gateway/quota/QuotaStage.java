package io.cachegate.gateway.quota;

import io.cachegate.admission.TokenEstimator;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Stage;
import io.cachegate.gateway.exchange.UsageTail;
import io.github.bucket4j.ConsumptionProbe;
import java.util.concurrent.CompletableFuture;

/**
 * The tenant's limits, checked after the route (the prompt is parsed, so its tokens can be estimated) and before
 * the caches (a hit counts as a request). A request whose head already took its place and request at the listener
 * ({@link HeadPass}) takes only its tokens here. Over {@code max_concurrent}, {@code requests_per_second} or
 * {@code tokens_per_minute}: 429 {@code rate_limit_exceeded} with {@code Retry-After}. Under them, the request
 * goes on with OpenAI's {@code x-ratelimit-*} headers set for whatever answers it, and a tap that settles its
 * token estimate with the answer's usage ({@link UsageTap}). A tenant without limits passes untouched.
 */
public final class QuotaStage implements Stage {

    /** The limits a request meets, as metrics ({@code kind}) and the access log ({@code quota_<kind>}) name them. */
    static final String CONCURRENT = "concurrent";
    static final String REQUESTS = "requests";
    static final String TOKENS = "tokens";

    private final Quotas quotas;
    private final TokenEstimator estimator = TokenEstimator.heuristic();

    public QuotaStage(Quotas quotas) {
        this.quotas = quotas;
    }

    @Override
    public void handle(Exchange x, Next next) {
        TenantQuota quota = quotas.of(x.tenant());
        if (quota == null) {
            next.proceed(x);
            return;
        }
        HeadPass pass = x.get(HeadPass.KEY);
        if (pass != null && pass.quota() == quota) {
            // In flight since its head, which took the request too (the listener gives the place back at the end).
            long estimate = estimateIfLimited(x, quota);
            go(x, next, quota, pass.request().thenCompose(request -> quota.takeTokens(request, estimate)), estimate);
            return;
        }
        if (!quota.enter()) {
            refuse(x, quota, ErrorKind.RATE_LIMITED_REQUESTS, CONCURRENT, concurrentMessage(quota), 1);
            return;
        }
        x.whenFinished(quota::leave);
        long estimate = estimateIfLimited(x, quota);
        go(x, next, quota, quota.take(estimate), estimate);
    }

    private void go(Exchange x, Next next, TenantQuota quota, CompletableFuture<TenantQuota.Taken> taken,
                    long estimate) {
        if (taken.isDone()) {
            decide(x, next, quota, taken.join(), estimate);
        } else {
            // Shared buckets answer on a Redis thread; the exchange goes on on its own loop.
            taken.whenComplete((t, error) -> x.resume(() -> {
                if (t != null) {
                    decide(x, next, quota, t, estimate);
                } else if (!x.isDone()) {
                    x.record().quotaFailedOpen(); // a bug in a bucket must not hold the request
                    next.proceed(x);
                }
            }));
        }
    }

    private void decide(Exchange x, Next next, TenantQuota quota, TenantQuota.Taken taken, long estimate) {
        if (x.isDone()) {
            return; // the client left while Redis answered
        }
        RateLimitHeaders.set(x, taken);
        ConsumptionProbe requests = taken.requests();
        if (requests != null && !requests.isConsumed()) {
            refuse(x, quota, ErrorKind.RATE_LIMITED_REQUESTS, REQUESTS, requestsMessage(quota, taken),
                    RateLimitHeaders.retryAfterSeconds(requests.getNanosToWaitForRefill()));
            return;
        }
        ConsumptionProbe tokens = taken.tokens();
        if (tokens != null && !tokens.isConsumed()) {
            long capacity = taken.tokenBucket().capacity();
            long need = Math.max(1, estimate);
            String message = need > capacity
                    ? "Request too large for tokens per minute: limit " + capacity + ", requested about " + need + "."
                    : "Rate limit reached for tokens per minute: limit " + capacity + ", requested about " + need
                    + ". Please try again in " + RateLimitHeaders.duration(tokens.getNanosToWaitForRefill()) + ".";
            // A request larger than the whole bucket waits for nothing: come back after a minute at most.
            long wait = need > capacity ? 60 : RateLimitHeaders.retryAfterSeconds(tokens.getNanosToWaitForRefill());
            refuse(x, quota, ErrorKind.RATE_LIMITED_TOKENS, TOKENS, message, wait);
            return;
        }
        if (tokens != null) {
            UsageTap usage = new UsageTap(taken.tokenBucket(), Math.max(1, estimate), UsageTail.of(x),
                    x.answer());
            x.addTap(usage);
            x.whenFinished(usage::finished);
        }
        next.proceed(x);
    }

    private void refuse(Exchange x, TenantQuota quota, ErrorKind kind, String metricKind, String message,
                        long retryAfterSeconds) {
        x.record().reason(reason(metricKind));
        x.retryLater(kind, message, retryAfterSeconds);
    }

    static String concurrentMessage(TenantQuota quota) {
        return "Too many requests in flight: limit " + quota.limits().maxConcurrent().getAsLong()
                + " at once. Please try again shortly.";
    }

    static String requestsMessage(TenantQuota quota, TenantQuota.Taken taken) {
        return "Rate limit reached for requests: limit " + quota.limits().requestsPerSecond().getAsLong()
                + " per second, burst " + taken.requestBucket().capacity() + ". Please try again in "
                + RateLimitHeaders.duration(taken.requests().getNanosToWaitForRefill()) + ".";
    }

    private long estimateIfLimited(Exchange x, TenantQuota quota) {
        return quota.limits().tokensPerMinute().isPresent() ? estimate(x) : 0;
    }

    /** The prompt's tokens, estimated as admission does (over rather than under). */
    private long estimate(Exchange x) {
        return x.parsed() == null ? 0 : estimator.estimate(x.parsed().promptText());
    }

    /** The access log's reason for a refusal by {@code limit}, e.g. {@code quota_requests}. */
    static String reason(String limit) {
        return "quota_" + limit;
    }
}
