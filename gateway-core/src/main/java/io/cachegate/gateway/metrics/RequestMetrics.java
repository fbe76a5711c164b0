package io.cachegate.gateway.metrics;

import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.ExchangeObserver;
import io.cachegate.gateway.exchange.ExchangeRecord;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.exchange.LookupStatus;
import io.cachegate.gateway.exchange.Speculation;

/**
 * Turns each finished exchange's record into the request meters: requests and their duration, every cache layer's
 * lookup, bypasses, hits and misses, coalescing, store lookup time, speculation, fallbacks, tenant limits, and the
 * time in each stage. The
 * stages state facts on the record; this is the one place they become metrics, so a fact is counted once and a new
 * stage is timed without a line of its own.
 */
public final class RequestMetrics implements ExchangeObserver {

    private static final String QUOTA = "quota_";

    private final GatewayMetrics metrics;

    public RequestMetrics(GatewayMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void started(Exchange x) {
        metrics.requestStarted();
    }

    @Override
    public void finished(Exchange x, int status, long nanos) {
        ExchangeRecord r = x.record();
        CharSequence xCache = x.xCache();
        metrics.requestFinished(x.routeLabel(), x.endpointName(), status,
                status >= 400 ? "error" : GatewayHeaders.outcome(xCache), nanos);
        lookup("exact", r.exactLookup());
        lookup("semantic", r.semanticLookup());
        if (r.bypass() != null) {
            metrics.cacheBypass(r.bypass().tag());
        }
        if (r.layer() != null) {
            metrics.cacheHit(r.layer(), x.routeLabel(), x.tenant(), Math.max(0, r.promptTokens()),
                    Math.max(0, r.completionTokens()));
        } else if (r.isMiss()) {
            metrics.cacheMiss(x.routeLabel());
        }
        if (r.cacheLookupNanos() >= 0) {
            metrics.storeLookupTime(r.cacheLookupNanos());
        }
        int[] items = r.embeddingItems();
        if (items != null) {
            metrics.embeddingItems().batch(items[0], items[1], items[2]);
        }
        if (r.coalesced()) {
            metrics.coalesced();
        }
        if (r.fleetTookOver()) {
            metrics.fleetCoalesce("takeover");
        }
        if (r.fleetOutcome() != null) {
            metrics.fleetCoalesce(r.fleetOutcome());
        }
        Speculation speculation = x.get(Speculation.KEY);
        if (speculation != null && speculation.outcome() != null) {
            metrics.semantic().speculation(speculation.outcome());
        }
        for (String reason : r.fallbackReasons()) {
            metrics.fallback(reason);
        }
        if (r.quotaFailOpen()) {
            metrics.quotaFailOpen();
        }
        quotaLimited(status, r.reason(), x.tenant());
        r.stages().forEach(metrics.stages());
    }

    /** A request refused on its head: by a tenant's limit, it counts as one. */
    @Override
    public void refused(int status, String requestId, String reason, String tenant) {
        quotaLimited(status, reason, tenant);
    }

    /** A 429 whose reason names a tenant's limit ({@code quota_requests}: see {@code QuotaStage.reason}). */
    private void quotaLimited(int status, String reason, String tenant) {
        if (status == 429 && tenant != null && reason != null && reason.startsWith(QUOTA)) {
            metrics.quotaLimited(tenant, reason.substring(QUOTA.length()));
        }
    }

    private void lookup(String layer, LookupStatus status) {
        if (status != null) {
            metrics.cacheLookup(layer, status.tag());
        }
    }
}
