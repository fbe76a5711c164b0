package io.cachegate.gateway.metrics;

import io.cachegate.cache.exact.StoreHealth;
import io.cachegate.cache.exact.StoreState;
import io.cachegate.config.Ticker;
import io.cachegate.routing.CircuitState;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
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
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The gateway's registry and the meters of its parts: connections, upstream calls, store writes and health, the JVM;
 * the request meters are {@link RequestMetrics}'s, the semantic layer's and audits' their own classes'. One registry
 * per gateway instance (never the global one). Tags are bounded: route index, endpoint, status code, backend name;
 * never a prompt, key or user.
 */
public final class GatewayMetrics implements AutoCloseable {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final JvmGcMetrics gcMetrics = new JvmGcMetrics();
    private final AtomicInteger activeConnections = new AtomicInteger();
    private final ConcurrentMap<String, Timer> upstreamTimers = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Counter> upstreamFailures = new ConcurrentHashMap<>();
    private final Counters counters = new Counters(registry);
    private final SemanticMetrics semantic = new SemanticMetrics(registry);
    private final AuditMetrics audits = new AuditMetrics(registry);
    private final BudgetWatchMetrics budgetWatch = new BudgetWatchMetrics(registry);
    private final EmbeddingItemMetrics embeddingItems = new EmbeddingItemMetrics(registry);
    private final List<Object> watched = new CopyOnWriteArrayList<>();
    private final StatusSeries series = new StatusSeries(registry, Ticker.system());
    private final RequestMetrics requests = new RequestMetrics(registry, counters, semantic, embeddingItems);

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
    }

    /** The request meters, and the observer of finished exchanges that updates them. */
    public RequestMetrics requests() {
        return requests;
    }

    /** Embeddings batches cached per item. */
    public EmbeddingItemMetrics embeddingItems() {
        return embeddingItems;
    }

    /** Audit and exploration verdicts on semantic hits. */
    public AuditMetrics audits() {
        return audits;
    }

    /** The error budget's class watch by route, read at each scrape. */
    public BudgetWatchMetrics budgetWatch() {
        return budgetWatch;
    }

    public SemanticMetrics semantic() {
        return semantic;
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** The Prometheus text exposition of every meter. */
    public String scrape() {
        budgetWatch.refresh();
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
        counters.get("cachegate.connections.refused", "Connections closed at accept because a connection cap was reached",
                "reason", reason).increment();
    }

    /** A connection closed by a read timeout; {@code phase} is {@code header}, {@code body} or {@code idle}. */
    public void connectionTimedOut(String phase) {
        counters.get("cachegate.connections.timed_out", "Connections closed because a request head or body, or the next "
                + "request, did not arrive in time", "phase", phase).increment();
    }

    public int activeConnections() {
        return activeConnections.get();
    }

    /** The recent past of these meters, for the status page; {@link StatusSeries#sample()} is called on a timer. */
    public StatusSeries series() {
        return series;
    }

    /** Requests started and not yet finished. */
    public int inFlight() {
        return requests.inFlight();
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
            counters.get("cachegate.backend.ejections", "Replicas ejected (circuit opened), by backend",
                    "backend", backend).increment();
        }
    }

    /** An upstream attempt repeated on another replica. */
    public void upstreamRetried(String backend) {
        counters.get("cachegate.upstream.retries", "Upstream attempts retried on another replica, by backend",
                "backend", backend).increment();
    }

    public void cacheWritten(long bytes) {
        counters.get("cachegate.cache.entries.written", "Entries written to the exact cache").increment();
        counters.get("cachegate.cache.bytes.written", "Bytes of response bodies written to the exact cache")
                .increment(bytes);
    }

    public void cacheWriteFailed() {
        counters.get("cachegate.cache.write.errors", "Entries that could not be written (store down or slow)")
                .increment();
    }

    /**
     * A background refresh of an entry served stale ({@code stale_while_revalidate}) ended: {@code refreshed} (this
     * gateway's call answered), {@code shared} (another request's or gateway's call did), {@code failed}, or {@code
     * dropped} (too many refreshes running: none started).
     */
    public void cacheRevalidated(String route, String outcome) {
        counters.get("cachegate.cache.revalidations", "Background refreshes of exact entries served stale while they "
                + "revalidate (stale_while_revalidate), by route and outcome", "route", route, "outcome", outcome)
                .increment();
    }

    public void cachePurged(long entries) {
        counters.get("cachegate.cache.purges", "Purge calls").increment();
        counters.get("cachegate.cache.purged.entries", "Entries removed by purges").increment(entries);
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

    /** Exposes a tiered store's L1: whether it serves now, and whether Redis's own tracking keeps it coherent. */
    public void watchL1(BooleanSupplier serving, BooleanSupplier tracked) {
        Gauge.builder("cachegate.cache.l1.serving", () -> serving.getAsBoolean() ? 1 : 0)
                .description("1 while the tiered store's L1 serves and keeps entries; 0 while it is emptied and"
                        + " bypassed (the invalidation channel or Redis's tracking not heard)")
                .register(registry);
        Gauge.builder("cachegate.cache.l1.tracked", () -> tracked.getAsBoolean() ? 1 : 0)
                .description("1 while Redis's own tracking (CLIENT TRACKING) keeps the tiered store's L1 coherent;"
                        + " 0 while it is armed again or Redis cannot track (a Cluster, a refusal)")
                .register(registry);
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

    @Override
    public void close() {
        gcMetrics.close();
        registry.close();
    }
}
