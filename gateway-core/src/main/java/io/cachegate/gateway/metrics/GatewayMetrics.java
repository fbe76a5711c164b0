package io.cachegate.gateway.metrics;

import io.cachegate.cache.exact.StoreHealth;
import io.cachegate.cache.exact.StoreState;
import io.cachegate.config.Ticker;
import io.cachegate.gateway.exchange.StageStamps;
import io.cachegate.routing.CircuitState;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The gateway's meters, on a registry owned by one gateway instance (never the global one). Tags
 * are bounded: route index, endpoint, status code, backend name; never a prompt, key or user.
 */
public final class GatewayMetrics implements AutoCloseable {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final JvmGcMetrics gcMetrics = new JvmGcMetrics();
    private final AtomicInteger activeConnections = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final ConcurrentMap<RequestKey, Counter> requestCounters = new ConcurrentHashMap<>();
    private final ConcurrentMap<TimerKey, Timer> requestTimers = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Timer> upstreamTimers = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Counter> upstreamFailures = new ConcurrentHashMap<>();
    private final ConcurrentMap<CounterKey, Counter> counters = new ConcurrentHashMap<>();
    private final ConcurrentMap<SavedKey, Counter> savings = new ConcurrentHashMap<>();
    private final Timer storeTimer;
    private final SemanticMetrics semantic = new SemanticMetrics(registry);
    private final AuditMetrics audits = new AuditMetrics(registry);
    private final EmbeddingItemMetrics embeddingItems = new EmbeddingItemMetrics(registry);
    private final List<Object> watched = new CopyOnWriteArrayList<>();
    private final StatusSeries series = new StatusSeries(registry, Ticker.system());
    private final ConcurrentMap<String, StageTime> stageTimes = new ConcurrentHashMap<>();
    private final StageStamps.Visitor stageVisitor = (name, spanName, entered, left, held, answered) ->
            stageTimes.computeIfAbsent(name, this::stageTime).add(left - entered);

    /** One stage's visits and their total time: two adders, as a stage is passed by every request. */
    private static final class StageTime {
        private final LongAdder count = new LongAdder();
        private final LongAdder nanos = new LongAdder();

        void add(long elapsed) {
            count.increment();
            nanos.add(elapsed);
        }
    }

    public GatewayMetrics() {
        new ClassLoaderMetrics().bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
        gcMetrics.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry); // process_files_open/max: the limit serve warns about
        new UptimeMetrics().bindTo(registry);
        Gauge.builder("cachegate.connections.active", activeConnections, AtomicInteger::get)
                .description("Client connections open on the proxy listener").register(registry);
        Gauge.builder("cachegate.requests.inflight", inFlight, AtomicInteger::get)
                .description("Proxied requests not yet answered in full").register(registry);
        storeTimer = Timer.builder("cachegate.cache.store.latency")
                .description("Time of one exact-cache store lookup (in-process or Redis)")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofNanos(10_000)).maximumExpectedValue(Duration.ofSeconds(1))
                .register(registry);
    }

    /** Embeddings batches cached per item. */
    public EmbeddingItemMetrics embeddingItems() {
        return embeddingItems;
    }

    /** Audit and exploration verdicts on semantic hits. */
    public AuditMetrics audits() {
        return audits;
    }

    public SemanticMetrics semantic() {
        return semantic;
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** The Prometheus text exposition of every meter. */
    public String scrape() {
        return registry.scrape();
    }

    public void connectionOpened() {
        activeConnections.incrementAndGet();
    }

    public void connectionClosed() {
        activeConnections.decrementAndGet();
    }

    /** A connection closed at accept, over a cap; {@code reason} is {@code total} or {@code per_address}. */
    public void connectionRefused(String reason) {
        counter("cachegate.connections.refused", "Connections closed at accept because a connection cap was reached",
                "reason", reason, null, null).increment();
    }

    /** A connection closed by a read timeout; {@code phase} is {@code header}, {@code body} or {@code idle}. */
    public void connectionTimedOut(String phase) {
        counter("cachegate.connections.timed_out", "Connections closed because a request head or body, or the next "
                + "request, did not arrive in time", "phase", phase, null, null).increment();
    }

    public int activeConnections() {
        return activeConnections.get();
    }

    public void requestStarted() {
        inFlight.incrementAndGet();
    }

    /**
     * Records one finished request; {@code route} is the route index or "none", {@code cache} the cache outcome
     * ({@code hit}, {@code miss}, {@code bypass}; {@code error} for any answer with a status of 400 or more).
     */
    public void requestFinished(String route, String endpoint, int status, String cache, long durationNanos) {
        inFlight.decrementAndGet();
        requestCounters.computeIfAbsent(new RequestKey(route, endpoint, status), k -> Counter.builder("cachegate.requests")
                .description("Requests answered, by route, endpoint and status")
                .tag("route", route).tag("endpoint", endpoint).tag("status", Integer.toString(status))
                .register(registry)).increment();
        requestTimers.computeIfAbsent(new TimerKey(endpoint, cache), k -> Timer.builder("cachegate.request.duration")
                .description("Time from a complete request to the end of its answer, by endpoint and cache outcome")
                .tag("endpoint", endpoint).tag("cache", cache)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofMinutes(10))
                .register(registry)).record(durationNanos, TimeUnit.NANOSECONDS);
    }

    /** Records each stage an exchange went through: {@code cachegate_stage_duration_seconds{stage}}. */
    public StageStamps.Visitor stages() {
        return stageVisitor;
    }

    private StageTime stageTime(String stage) {
        StageTime time = new StageTime();
        FunctionTimer.builder("cachegate.stage.duration", time, t -> t.count.sum(), t -> t.nanos.sum(),
                        TimeUnit.NANOSECONDS)
                .description("Time requests spent in each stage of the request path, from entering it to passing the "
                        + "request on or answering it")
                .tag("stage", stage).register(registry);
        return time;
    }

    /** The recent past of these meters, for the status page; {@link StatusSeries#sample()} is called on a timer. */
    public StatusSeries series() {
        return series;
    }

    public int inFlight() {
        return inFlight.get();
    }

    /** Time from sending a request upstream to receiving its response head. */
    public void upstreamResponded(String backend, long nanos) {
        upstreamTimers.computeIfAbsent(backend, b -> Timer.builder("cachegate.upstream.duration")
                .description("Time from sending a request to a backend to its response head")
                .tag("backend", b)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofMinutes(10))
                .register(registry)).record(nanos, TimeUnit.NANOSECONDS);
    }

    /** An upstream attempt that failed; {@code kind} is a bounded failure name. */
    public void upstreamFailed(String backend, String kind) {
        upstreamFailures.computeIfAbsent(backend + '|' + kind, k -> Counter.builder("cachegate.upstream.failures")
                .description("Upstream attempts that failed, by backend and kind")
                .tag("backend", backend).tag("kind", kind)
                .register(registry)).increment();
    }

    /** A replica's circuit changed state; counted when it opened (the replica was ejected). */
    public void replicaStateChanged(String backend, CircuitState to) {
        if (to == CircuitState.OPEN) {
            counter("cachegate.backend.ejections", "Replicas ejected (circuit opened), by backend",
                    "backend", backend, null, null).increment();
        }
    }

    /** A request sent to its route's fallback; {@code reason} is primary_down or degraded. */
    public void fallback(String reason) {
        counter("cachegate.fallbacks", "Requests served by the route's fallback backend or model, by reason",
                "reason", reason, null, null).increment();
    }

    /** An upstream attempt repeated on another replica. */
    public void upstreamRetried(String backend) {
        counter("cachegate.upstream.retries", "Upstream attempts retried on another replica, by backend",
                "backend", backend, null, null).increment();
    }

    /** A request of {@code tenant} refused by its limits; {@code kind} is requests, tokens or concurrent. */
    public void quotaLimited(String tenant, String kind) {
        counter("cachegate.quota.limited", "Requests refused with 429 by their tenant's limits, by tenant and kind",
                "tenant", tenant, "kind", kind).increment();
    }

    /** A shared (Redis) bucket did not answer in time: the tenant's local bucket decided instead. */
    public void quotaFailOpen() {
        counter("cachegate.quota.fail_open", "Limit checks decided by the gateway's own bucket because the shared "
                + "one in Redis failed or was slow", null, null, null, null).increment();
    }

    /** One cache lookup; {@code outcome} is hit, miss, bypass or error. */
    public void cacheLookup(String layer, String outcome) {
        counter("cachegate.cache.lookups", "Cache lookups by layer and outcome", "layer", layer, "outcome", outcome).increment();
    }

    /** A request that did not use the cache, with a bounded reason. */
    public void cacheBypass(String reason) {
        counter("cachegate.cache.bypass", "Requests that bypassed the cache, by reason", "reason", reason, null, null).increment();
    }

    /** A hit from {@code layer}: one backend call avoided and the tokens it would have generated. */
    public void cacheHit(String layer, String route, String tenant, int promptTokens, int completionTokens) {
        saved("cachegate.cache.calls.avoided", "Backend calls answered from the cache, by layer, route and tenant",
                layer, route, tenant).increment();
        saved("cachegate.cache.tokens.saved", "Tokens (prompt + completion) not generated thanks to hits, by layer, "
                + "route and tenant", layer, route, tenant).increment(promptTokens + completionTokens);
    }

    /**
     * What a hit from {@code layer} saved beyond tokens: {@code cost} in the policy's price unit (0 without a
     * price), and the upstream time it avoided (estimated from the route's recent upstream answers; 0 before any).
     */
    public void hitSaved(String layer, String route, String tenant, double cost, long latencyNanos) {
        if (cost > 0) {
            saved("cachegate.cache.cost.saved", "What the tokens hits saved would have cost, at the policy's prices "
                    + "per million tokens, by layer, route and tenant", layer, route, tenant).increment(cost);
        }
        if (latencyNanos > 0) {
            saved("cachegate.cache.latency.saved", "Upstream time hits avoided, estimated from the route's recent "
                    + "upstream answers, by layer, route and tenant", layer, route, tenant)
                    .increment(latencyNanos / 1e9);
        }
    }

    private Counter saved(String name, String description, String layer, String route, String tenant) {
        return savings.computeIfAbsent(new SavedKey(name, layer, route, tenant), k -> Counter.builder(name)
                .description(description).baseUnit(name.endsWith("latency.saved") ? "seconds" : null)
                .tag("layer", layer).tag("route", route).tag("tenant", tenant).register(registry));
    }

    public void cacheMiss(String route) {
        counter("cachegate.cache.misses", "Cacheable requests not found in the cache", "route", route, null, null).increment();
    }

    public void cacheWritten(long bytes) {
        counter("cachegate.cache.entries.written", "Entries written to the exact cache", null, null, null, null).increment();
        counter("cachegate.cache.bytes.written", "Bytes of response bodies written to the exact cache", null, null, null, null)
                .increment(bytes);
    }

    public void cacheWriteFailed() {
        counter("cachegate.cache.write.errors", "Entries that could not be written (store down or slow)", null, null, null, null)
                .increment();
    }

    public void cachePurged(long entries) {
        counter("cachegate.cache.purges", "Purge calls", null, null, null, null).increment();
        counter("cachegate.cache.purged.entries", "Entries removed by purges", null, null, null, null).increment(entries);
    }

    public void coalesced() {
        counter("cachegate.cache.coalesced", "Requests that shared an identical request's upstream call", null, null, null, null)
                .increment();
    }

    /** A request's claim or wait across gateways ended: led, joined, hit, miss, timeout, full, unavailable, cancelled. */
    public void fleetCoalesce(String outcome) {
        counter("cachegate.cache.coalesced.fleet", "Cacheable misses by what coalescing across gateways did with them",
                "outcome", outcome, null, null).increment();
    }

    /** Exposes how many requests wait for other gateways' answers now. */
    public void watchFleet(IntSupplier waiting) {
        Gauge.builder("cachegate.cache.coalesce.fleet.waiting", waiting::getAsInt)
                .description("Requests waiting for another gateway's answer to the same request").register(registry);
    }

    /** Exposes the cache store's state: 1 while it answers, and its error count. */
    public void watchStore(BooleanSupplier available, LongSupplier errors) {
        watched.add(errors); // Micrometer holds a function counter's object weakly; this lambda exists nowhere else
        Gauge.builder("cachegate.cache.store.available", () -> available.getAsBoolean() ? 1 : 0)
                .description("1 while the exact-cache store answers; 0 while the gateway bypasses it").register(registry);
        FunctionCounter.builder("cachegate.cache.store.errors", errors, LongSupplier::getAsLong)
                .description("Exact-cache store operations that failed or timed out").register(registry);
    }

    /**
     * Exposes a shared (Redis) store's health decision: a gauge per state, 1 for the one it is in; the changes into
     * each state; and the command timeout it uses now (it follows measured latency). An in-process store has none.
     */
    public void watchStoreHealth(StoreHealth health) {
        watched.add(health);
        for (StoreState state : StoreState.values()) {
            Gauge.builder("cachegate.cache.store.state", health, h -> h.state() == state ? 1 : 0)
                    .tag("state", state.label())
                    .description("1 for the state the shared exact-cache store is in: healthy, degraded (fails fast,"
                            + " requests bypass it) or probing")
                    .register(registry);
            FunctionCounter.builder("cachegate.cache.store.state.changes", health, h -> h.stateChanges(state))
                    .tag("to", state.label())
                    .description("Changes of the shared exact-cache store's health state, by the state entered")
                    .register(registry);
        }
        TimeGauge.builder("cachegate.cache.store.command.timeout", health, TimeUnit.NANOSECONDS,
                        h -> h.commandTimeout().toNanos())
                .description("The shared exact-cache store's command timeout now: a multiple of its recent p99"
                        + " latency, within cache.exact.timeout and health.timeout_max")
                .register(registry);
    }

    /** Time of one store lookup. */
    public void storeLookupTime(long nanos) {
        storeTimer.record(nanos, TimeUnit.NANOSECONDS);
    }

    private Counter counter(String name, String description, String tag1, String value1, String tag2, String value2) {
        return counters.computeIfAbsent(new CounterKey(name, value1, value2), k -> {
            Counter.Builder b = Counter.builder(name).description(description);
            if (tag1 != null) {
                b.tag(tag1, value1);
            }
            if (tag2 != null) {
                b.tag(tag2, value2);
            }
            return b.register(registry);
        });
    }

    // Record keys instead of concatenated strings: counted on every request, built without copying text.
    private record RequestKey(String route, String endpoint, int status) {
    }

    private record CounterKey(String name, String value1, String value2) {
    }

    private record TimerKey(String endpoint, String cache) {
    }

    private record SavedKey(String name, String layer, String route, String tenant) {
    }

    @Override
    public void close() {
        gcMetrics.close();
        registry.close();
    }
}
