package io.cachegate.gateway.metrics;

import io.cachegate.cache.semantic.ClassWatch;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The error budget's class watch by route ({@link ClassWatch.Figures}): {@code cachegate.semantic.budget.watch.events
 * {route, event=drift_closed|bound_closed|reopened}} and {@code cachegate.semantic.budget.classes.closed{route}}. The
 * figures live in the semantic layer's evidence; they are read once per scrape ({@link #refresh}, on the admin loop:
 * each scope's lock for microseconds), and every meter reads that snapshot, so a scrape never waits on a verdict and
 * the meters of one scrape agree. Route is the only tag, as for the wrong-hit rate: tenants are summed.
 */
public final class BudgetWatchMetrics {

    private final MeterRegistry registry;
    private final Set<String> routes = ConcurrentHashMap.newKeySet();
    private volatile Supplier<Map<String, ClassWatch.Figures>> source = Map::of;
    private volatile Map<String, ClassWatch.Figures> last = Map.of();

    BudgetWatchMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Where the figures come from: the semantic layer, once it is open. */
    public void watch(Supplier<Map<String, ClassWatch.Figures>> figuresByRoute) {
        this.source = Objects.requireNonNull(figuresByRoute, "figuresByRoute");
    }

    /** Reads the figures of every route, and registers the meters of a route seen for the first time. */
    void refresh() {
        Map<String, ClassWatch.Figures> now = source.get();
        last = now;
        for (String route : now.keySet()) {
            if (routes.add(route)) {
                register(route);
            }
        }
    }

    private void register(String route) {
        String events = "Verdicts by which the error budget's class watch closed a route's classes (the drift test; "
                + "an open class's bound back over the budget, to be re-earned) or reopened one on the verdicts since "
                + "its closing";
        event(route, "drift_closed", events, f -> f.driftClosings());
        event(route, "bound_closed", events, f -> f.boundClosings());
        event(route, "reopened", events, f -> f.reopenings());
        Gauge.builder("cachegate.semantic.budget.classes.closed", this, m -> m.figures(route).closedNow())
                .description("Classes of a route's error budget the watch keeps closed until they re-earn their "
                        + "opening, over its tenants")
                .tag("route", route).register(registry);
    }

    private void event(String route, String event, String description, ToDoubleFunction<ClassWatch.Figures> count) {
        FunctionCounter.builder("cachegate.semantic.budget.watch.events", this, m -> count.applyAsDouble(m.figures(route)))
                .description(description).tag("route", route).tag("event", event).register(registry);
    }

    private ClassWatch.Figures figures(String route) {
        return last.getOrDefault(route, ClassWatch.Figures.NONE);
    }
}
