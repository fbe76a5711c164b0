package io.cachegate.gateway.metrics;

import io.cachegate.admission.AdmissionController;
import io.cachegate.admission.AdmissionListener;
import io.cachegate.admission.AdmissionSnapshot;
import io.cachegate.admission.RejectReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admission control's meters for one backend: queue depth, queued tokens and wait time per class, rejections
 * by reason, overload state, dispatches and the estimated drain rate. Gauges read the controller's snapshot;
 * events arrive as the controller's listener. Overload changes are also logged: they are an operating mode.
 */
public final class AdmissionMetrics implements AdmissionListener {

    private static final Logger log = LoggerFactory.getLogger(AdmissionMetrics.class);
    /** The meters {@link #watch} binds to one controller. */
    private static final Set<String> CONTROLLER_METERS = Set.of("cachegate.admission.overloaded",
            "cachegate.admission.drain.rate", "cachegate.admission.dispatched", "cachegate.queue.depth",
            "cachegate.queue.tokens");

    private final MeterRegistry registry;
    private final String backend;
    private final ConcurrentMap<String, Timer> waits = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Timer> tenantWaits = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Counter> rejections = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Counter> degraded = new ConcurrentHashMap<>();

    public AdmissionMetrics(MeterRegistry registry, String backend) {
        this.registry = registry;
        this.backend = backend;
    }

    /**
     * Removes every backend's controller-bound meters: Micrometer keeps the first meter registered under a name
     * and tags, so a generation that rebuilds the backends removes them before its controllers register their own.
     */
    public static void removeGauges(MeterRegistry registry) {
        for (Meter meter : List.copyOf(registry.getMeters())) {
            if (CONTROLLER_METERS.contains(meter.getId().getName())) {
                registry.remove(meter);
            }
        }
    }

    /** Registers the gauges reading {@code controller}'s snapshot; call once, after the controller is built. */
    public void watch(AdmissionController controller, Iterable<String> classes) {
        Gauge.builder("cachegate.admission.overloaded", controller, c -> c.overloaded() ? 1 : 0)
                .description("1 while the backend's admission control is in overload mode").tag("backend", backend)
                .register(registry);
        Gauge.builder("cachegate.admission.drain.rate", controller, AdmissionController::drainRate)
                .description("Estimated tokens per second the backend completes, behind Retry-After")
                .tag("backend", backend).register(registry);
        FunctionCounter.builder("cachegate.admission.dispatched", controller, c -> c.snapshot().dispatched())
                .description("Requests admitted to the backend").tag("backend", backend).register(registry);
        for (String name : classes) {
            classGauge("cachegate.queue.depth", "Requests waiting in the class's queue", controller, name,
                    s -> s.queued());
            classGauge("cachegate.queue.tokens", "Estimated tokens waiting in the class's queue", controller, name,
                    s -> s.queuedTokens());
        }
    }

    private void classGauge(String name, String description, AdmissionController controller, String trafficClass,
                            ToDoubleFunction<AdmissionSnapshot.ClassStats> value) {
        Gauge.builder(name, controller, c -> value.applyAsDouble(c.snapshot().classStats(trafficClass)))
                .description(description).tag("backend", backend).tag("class", trafficClass).register(registry);
    }

    @Override
    public void onDispatched(String trafficClass, String tenant, Duration waited, boolean degradedToFallback) {
        waits.computeIfAbsent(trafficClass, c -> Timer.builder("cachegate.queue.wait")
                .description("Time requests waited for admission, per class")
                .tag("backend", backend).tag("class", c)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofNanos(100_000)).maximumExpectedValue(Duration.ofMinutes(10))
                .register(registry)).record(waited);
        if (!tenant.isEmpty()) {
            // Per tenant: count, sum and max only (no histogram), as tenants multiply the series.
            tenantWaits.computeIfAbsent(trafficClass + '|' + tenant, k -> Timer.builder("cachegate.tenant.queue.wait")
                    .description("Time each tenant's requests waited for admission, per class: the fair order's "
                            + "effect")
                    .tag("backend", backend).tag("class", trafficClass).tag("tenant", tenant)
                    .register(registry)).record(waited);
        }
        if (degradedToFallback) {
            degraded.computeIfAbsent(trafficClass, c -> Counter.builder("cachegate.admission.degraded")
                    .description("Requests sent to the route's fallback model because of overload")
                    .tag("backend", backend).tag("class", c).register(registry)).increment();
        }
    }

    @Override
    public void onRejected(String trafficClass, RejectReason reason) {
        rejections.computeIfAbsent(trafficClass + '|' + reason.tag(), k -> Counter.builder("cachegate.admission.rejections")
                .description("Requests turned away by admission control, by class and reason")
                .tag("backend", backend).tag("class", trafficClass).tag("reason", reason.tag())
                .register(registry)).increment();
    }

    @Override
    public void onOverloadChanged(boolean overloaded, Duration queueAge, long pendingTokens) {
        if (overloaded) {
            log.warn("backend {}: overload mode entered (oldest queued {} ms, {} tokens pending): pausable classes"
                    + " paused, degradable classes sent to fallbacks, optional work skipped", backend,
                    queueAge.toMillis(), pendingTokens);
        } else {
            log.info("backend {}: overload mode left (oldest queued {} ms, {} tokens pending)", backend,
                    queueAge.toMillis(), pendingTokens);
        }
    }
}
