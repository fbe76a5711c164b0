package io.cachegate.gateway.metrics;

import io.cachegate.gateway.exchange.Answer;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.ExchangeObserver;
import io.cachegate.gateway.exchange.ExchangeRecord;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.exchange.LookupStatus;
import io.cachegate.gateway.exchange.Speculation;
import io.cachegate.gateway.exchange.UsageTail;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The request meters, and the observer that turns each finished exchange's record into them: requests and their
 * duration, every cache layer's lookup, bypasses, hits, what they saved and misses, coalescing, store lookup time,
 * the semantic lookup's parts, speculation, fallbacks, tenant limits, and the time in each stage. The stages state
 * facts on the record; this is the one place they become metrics, so a fact is counted once and a new stage is
 * timed without a line of its own.
 */
public final class RequestMetrics implements ExchangeObserver {

    private static final String QUOTA = "quota_";

    private final MeterRegistry registry;
    private final Counters counters;
    private final SemanticMetrics semantic;
    private final EmbeddingItemMetrics embeddingItems;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Timer storeTimer;
    private final ConcurrentMap<RequestKey, Counter> requestCounters = new ConcurrentHashMap<>();
    private final ConcurrentMap<TimerKey, Timer> requestTimers = new ConcurrentHashMap<>();
    private final ConcurrentMap<SavedKey, Counter> savings = new ConcurrentHashMap<>();
    private final StageTimes stageTimes;

    RequestMetrics(MeterRegistry registry, Counters counters, SemanticMetrics semantic,
                   EmbeddingItemMetrics embeddingItems) {
        this.registry = registry;
        this.counters = counters;
        this.semantic = semantic;
        this.embeddingItems = embeddingItems;
        this.stageTimes = new StageTimes(registry);
        Gauge.builder("cachegate.requests.inflight", inFlight, AtomicInteger::get)
                .description("Proxied requests not yet answered in full").register(registry);
        storeTimer = Timer.builder("cachegate.cache.store.latency")
                .description("Time of one exact-cache store lookup (in-process or Redis)")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofNanos(10_000)).maximumExpectedValue(Duration.ofSeconds(1))
                .register(registry);
    }

    /** Requests started and not yet finished. */
    public int inFlight() {
        return inFlight.get();
    }

    @Override
    public void started(Exchange x) {
        inFlight.incrementAndGet();
    }

    @Override
    public void finished(Exchange x, int status, long nanos) {
        inFlight.decrementAndGet();
        ExchangeRecord r = x.record();
        String route = x.routeLabel();
        requestCounters.computeIfAbsent(new RequestKey(route, x.endpointName(), status), this::requestCounter)
                .increment();
        String outcome = status >= 400 ? "error" : GatewayHeaders.outcome(x.xCache());
        requestTimers.computeIfAbsent(new TimerKey(x.endpointName(), outcome), this::requestTimer)
                .record(nanos, TimeUnit.NANOSECONDS);
        lookup("exact", r.exactLookup());
        lookup("semantic", r.semanticLookup());
        if (r.bypass() != null) {
            bypass(r.bypass().tag());
        }
        if (r.layer() != null) {
            hit(r, route, x.tenant());
        } else if (r.staleCause() != null) {
            counters.get("cachegate.cache.stale", "Answers served from an exact entry past its TTL, while it is "
                    + "refreshed (stale_while_revalidate) or because the backend could not answer (stale_if_error), by "
                    + "route and reason", "route", route,
                    "reason", r.staleCause()).increment();
        } else if (r.isMiss()) {
            counters.get("cachegate.cache.misses", "Cacheable requests not found in the cache", "route", route)
                    .increment();
        }
        if (r.cacheLookupNanos() >= 0) {
            storeTimer.record(r.cacheLookupNanos(), TimeUnit.NANOSECONDS);
        }
        semanticLookup(r);
        int[] items = r.embeddingItems();
        if (items != null) {
            embeddingItems.batch(items[0], items[1], items[2]);
        }
        if (r.coalesced()) {
            counters.get("cachegate.cache.coalesced", "Requests that shared an identical request's upstream call")
                    .increment();
        }
        if (r.fleetTookOver()) {
            fleetCoalesce("takeover");
        }
        if (r.fleetOutcome() != null) {
            fleetCoalesce(r.fleetOutcome());
        }
        Speculation speculation = Speculation.of(x);
        if (speculation != null && speculation.outcome() != null) {
            semantic.speculation(speculation.outcome());
        }
        for (String reason : r.fallbackReasons()) {
            counters.get("cachegate.fallbacks", "Requests served by the route's fallback backend or model, by reason",
                    "reason", reason).increment();
        }
        if (r.quotaFailOpen()) {
            quotaFailOpen();
        }
        quotaLimited(status, r.reason(), x.tenant());
        if (r.uncachedEstimate() >= 0) {
            uncachedEstimate(x, r);
        }
        stageTimes.add(r.stages());
    }

    /**
     * The uncached prompt tokens admission charged against the backend's count (prompt tokens minus those its answer
     * says its prefix cache held): the cost model's error, by backend. Only answers that say it count.
     */
    private void uncachedEstimate(Exchange x, ExchangeRecord r) {
        UsageTail tail = UsageTail.existing(x);
        UsageTail.Usage usage = tail == null || x.answer().source() != Answer.Source.BACKEND ? null
                : tail.usage().orElse(null);
        if (usage == null || usage.cached() < 0 || r.backend() == null) {
            return;
        }
        long actual = Math.max(0, usage.prompt() - usage.cached());
        counters.get("cachegate.admission.uncached.estimated.tokens", "Uncached prompt tokens admission charged, for "
                + "answers that report their cached tokens, by backend", "backend", r.backend())
                .increment(r.uncachedEstimate());
        counters.get("cachegate.admission.uncached.actual.tokens", "Uncached prompt tokens the backend reported "
                + "(prompt minus cached), for the same answers, by backend", "backend", r.backend()).increment(actual);
        counters.get("cachegate.admission.uncached.error.tokens", "Absolute difference of the two, summed: the cost "
                + "model's error, by backend", "backend", r.backend())
                .increment(Math.abs(r.uncachedEstimate() - actual));
    }

    /** A request refused on its head: by a tenant's limit, it counts as one. */
    @Override
    public void refused(int status, String requestId, String reason, String tenant) {
        quotaLimited(status, reason, tenant);
    }

    /** A request that did not use the cache (or whose answer was not stored), with a bounded reason. */
    public void bypass(String reason) {
        counters.get("cachegate.cache.bypass", "Requests that bypassed the cache, by reason", "reason", reason)
                .increment();
    }

    /** A shared (Redis) bucket did not answer in time: the tenant's local bucket decided instead. */
    public void quotaFailOpen() {
        counters.get("cachegate.quota.fail_open", "Limit checks decided by the gateway's own bucket because the "
                + "shared one in Redis failed or was slow").increment();
    }

    /** A hit: one backend call avoided, the tokens it would have generated, and what they would have cost. */
    private void hit(ExchangeRecord r, String route, String tenant) {
        String layer = r.layer();
        saved("cachegate.cache.calls.avoided", "Backend calls answered from the cache, by layer, route and tenant",
                layer, route, tenant).increment();
        saved("cachegate.cache.tokens.saved", "Tokens (prompt + completion) not generated thanks to hits, by layer, "
                + "route and tenant", layer, route, tenant)
                .increment(Math.max(0, r.promptTokens()) + Math.max(0, r.completionTokens()));
        if (r.costSaved() > 0) {
            saved("cachegate.cache.cost.saved", "What the tokens hits saved would have cost, at the policy's prices "
                    + "per million tokens, by layer, route and tenant", layer, route, tenant).increment(r.costSaved());
        }
        if (r.latencySavedNanos() > 0) {
            saved("cachegate.cache.latency.saved", "Upstream time hits avoided, estimated from the route's recent "
                    + "upstream answers, by layer, route and tenant", layer, route, tenant)
                    .increment(r.latencySavedNanos() / 1e9);
        }
    }

    /** The semantic lookup's parts (embed, then search unless embedding failed), a part that failed, similarity. */
    private void semanticLookup(ExchangeRecord r) {
        if (r.semanticStartNanos() < 0) {
            return;
        }
        String failed = r.semanticFailedPart();
        semantic.embedTime(r.embedNanos());
        if (!"embed".equals(failed)) {
            semantic.searchTime(r.searchNanos());
        }
        if (failed != null) {
            semantic.failOpen(failed);
        }
        if (!Double.isNaN(r.nearestSimilarity())) {
            semantic.similarity(r.semanticMatched(), r.nearestSimilarity());
        }
    }

    /** A 429 whose reason names a tenant's limit ({@code quota_requests}: see {@code QuotaStage.reason}). */
    private void quotaLimited(int status, String reason, String tenant) {
        if (status == 429 && tenant != null && reason != null && reason.startsWith(QUOTA)) {
            counters.get("cachegate.quota.limited", "Requests refused with 429 by their tenant's limits, by tenant "
                    + "and kind", "tenant", tenant, "kind", reason.substring(QUOTA.length())).increment();
        }
    }

    private void lookup(String layer, LookupStatus status) {
        if (status != null) {
            counters.get("cachegate.cache.lookups", "Cache lookups by layer and outcome", "layer", layer,
                    "outcome", status.tag()).increment();
        }
    }

    /** A request's claim or wait across gateways ended: led, joined, hit, miss, timeout, full, unavailable... */
    private void fleetCoalesce(String outcome) {
        counters.get("cachegate.cache.coalesced.fleet", "Cacheable misses by what coalescing across gateways did "
                + "with them", "outcome", outcome).increment();
    }

    private Counter requestCounter(RequestKey k) {
        return Counter.builder("cachegate.requests")
                .description("Requests answered, by route, endpoint and status")
                .tag("route", k.route()).tag("endpoint", k.endpoint()).tag("status", Integer.toString(k.status()))
                .register(registry);
    }

    private Timer requestTimer(TimerKey k) {
        return Timer.builder("cachegate.request.duration")
                .description("Time from a complete request to the end of its answer, by endpoint and cache outcome")
                .tag("endpoint", k.endpoint()).tag("cache", k.cache())
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofMinutes(10))
                .register(registry);
    }

    private Counter saved(String name, String description, String layer, String route, String tenant) {
        SavedKey key = new SavedKey(name, layer, route, tenant);
        Counter known = savings.get(key); // on every hit: no function object unless the counter is new
        return known != null ? known : savings.computeIfAbsent(key, k -> Counter.builder(name)
                .description(description).baseUnit(name.endsWith("latency.saved") ? "seconds" : null)
                .tag("layer", layer).tag("route", route).tag("tenant", tenant).register(registry));
    }

    // Record keys instead of concatenated strings: counted on every request, built without copying text.
    private record RequestKey(String route, String endpoint, int status) {
    }

    private record TimerKey(String endpoint, String cache) {
    }

    private record SavedKey(String name, String layer, String route, String tenant) {
    }
}
