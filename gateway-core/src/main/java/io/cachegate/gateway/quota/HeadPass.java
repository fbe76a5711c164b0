package io.cachegate.gateway.quota;

import io.cachegate.gateway.exchange.Exchange;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What a request took from its tenant's limits at its head, before any of its body was read: a place under
 * {@code max_concurrent} and one request from its request bucket. Taken there, a key at its limit cannot make
 * the gateway hold another body; {@link QuotaStage} finds the pass on the exchange and takes only the tokens.
 * The place is given back once, by {@link #release()}, whichever comes first: the exchange finishing, the
 * request refused before it became one, or its connection closing.
 */
public final class HeadPass {

    /** Where the listener leaves the pass for the request's exchange. */
    public static final Exchange.Key<HeadPass> KEY = Exchange.Key.named("head-pass");

    private final TenantQuota quota;
    private final CompletableFuture<TenantQuota.Taken> request;
    private final String refusal;
    /** With a refusal: the limit that refused it, {@link QuotaStage#CONCURRENT} or {@link QuotaStage#REQUESTS}. */
    private final String limit;
    private final long retryAfterSeconds;
    private final HttpHeaders refusalHeaders = new DefaultHttpHeaders();
    private final AtomicBoolean released = new AtomicBoolean();

    private HeadPass(TenantQuota quota, CompletableFuture<TenantQuota.Taken> request, String refusal,
                     String limit, long retryAfterSeconds) {
        this.quota = quota;
        this.request = request;
        this.refusal = refusal;
        this.limit = limit;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    static HeadPass granted(TenantQuota quota, CompletableFuture<TenantQuota.Taken> request) {
        return new HeadPass(quota, request, null, null, 0);
    }

    /** A head refused by its tenant's {@code max_concurrent}: it holds no place. */
    static HeadPass refused(TenantQuota quota, String message, long retryAfterSeconds) {
        return refused(quota, QuotaStage.CONCURRENT, message, retryAfterSeconds);
    }

    private static HeadPass refused(TenantQuota quota, String limit, String message, long retryAfterSeconds) {
        HeadPass pass = new HeadPass(quota, null, message, limit, retryAfterSeconds);
        pass.released.set(true);
        return pass;
    }

    /** A head refused by its request bucket: the refusal carries the bucket's {@code x-ratelimit-*} headers. */
    static HeadPass refusedByRate(TenantQuota quota, String message, long retryAfterSeconds,
                                  TenantQuota.Taken taken) {
        HeadPass pass = refused(quota, QuotaStage.REQUESTS, message, retryAfterSeconds);
        RateLimitHeaders.set(pass.refusalHeaders::set, taken);
        return pass;
    }

    /** Why the head alone is refused (429 {@code rate_limit_exceeded}), or null when the request may go on. */
    public String refusal() {
        return refusal;
    }

    /** With a {@link #refusal()}: the access log's reason, {@code quota_concurrent} or {@code quota_requests}. */
    public String refusalReason() {
        return QuotaStage.reason(limit);
    }

    /** With a {@link #refusal()}: when to come back, in whole seconds. */
    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }

    /** Headers the refusal's answer carries (OpenAI's {@code x-ratelimit-*}); empty for a granted pass. */
    public HttpHeaders refusalHeaders() {
        return refusalHeaders;
    }

    /** Gives the place under {@code max_concurrent} back; only the first call counts. */
    public void release() {
        if (released.compareAndSet(false, true)) {
            quota.leave();
        }
    }

    TenantQuota quota() {
        return quota;
    }

    /** The request taken from the bucket at the head; a shared bucket may still be answering. */
    CompletableFuture<TenantQuota.Taken> request() {
        return request;
    }
}
