package io.cachegate.gateway.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The gateway's meters, on a registry owned by one gateway instance (never the global one). Tags
 * are bounded: route index, endpoint, status code, backend name; never a prompt, key or user.
 */
public final class GatewayMetrics implements AutoCloseable {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final JvmGcMetrics gcMetrics = new JvmGcMetrics();
    private final AtomicInteger activeConnections = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final ConcurrentMap<String, Counter> requestCounters = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Timer> requestTimers = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Timer> upstreamTimers = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Counter> upstreamFailures = new ConcurrentHashMap<>();

    public GatewayMetrics() {
        new ClassLoaderMetrics().bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
        gcMetrics.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        Gauge.builder("cachegate.connections.active", activeConnections, AtomicInteger::get)
                .description("Client connections open on the proxy listener").register(registry);
        Gauge.builder("cachegate.requests.inflight", inFlight, AtomicInteger::get)
                .description("Proxied requests not yet answered in full").register(registry);
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

    public int activeConnections() {
        return activeConnections.get();
    }

    public void requestStarted() {
        inFlight.incrementAndGet();
    }

    /** Records one finished request; {@code route} is the route index or "none". */
    public void requestFinished(String route, String endpoint, int status, long durationNanos) {
        inFlight.decrementAndGet();
        String key = route + '|' + endpoint + '|' + status;
        requestCounters.computeIfAbsent(key, k -> Counter.builder("cachegate.requests")
                .description("Requests answered, by route, endpoint and status")
                .tag("route", route).tag("endpoint", endpoint).tag("status", Integer.toString(status))
                .register(registry)).increment();
        requestTimers.computeIfAbsent(endpoint, e -> Timer.builder("cachegate.request.duration")
                .description("Time from a complete request to the end of its answer")
                .tag("endpoint", e)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofMinutes(10))
                .register(registry)).record(durationNanos, TimeUnit.NANOSECONDS);
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

    @Override
    public void close() {
        gcMetrics.close();
        registry.close();
    }
}
