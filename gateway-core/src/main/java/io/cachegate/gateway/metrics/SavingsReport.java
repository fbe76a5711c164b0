package io.cachegate.gateway.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the cache saved since the gateway started, for {@code /admin/stats}: backend calls, tokens, cost and
 * upstream seconds, in total and by layer, route and tenant. Read from the same counters Prometheus scrapes, so
 * the two never disagree.
 */
public final class SavingsReport {

    private static final String[] FIGURES = {"calls", "tokens", "cost", "latencySeconds"};
    private static final String[] METERS = {"cachegate.cache.calls.avoided", "cachegate.cache.tokens.saved",
            "cachegate.cache.cost.saved", "cachegate.cache.latency.saved"};

    private SavingsReport() {
    }

    /** {@code {total: {calls, tokens, cost, latencySeconds}, byLayer: {...}, byRoute: {...}, byTenant: {...}}}. */
    public static Map<String, Object> of(MeterRegistry registry) {
        Map<String, Double> total = empty();
        Map<String, Map<String, Double>> byLayer = new TreeMap<>();
        Map<String, Map<String, Double>> byRoute = new TreeMap<>();
        Map<String, Map<String, Double>> byTenant = new TreeMap<>();
        for (int i = 0; i < METERS.length; i++) {
            String figure = FIGURES[i];
            for (Counter c : registry.find(METERS[i]).counters()) {
                double value = c.count();
                total.merge(figure, value, Double::sum);
                add(byLayer, c.getId().getTag("layer"), figure, value);
                add(byRoute, c.getId().getTag("route"), figure, value);
                add(byTenant, c.getId().getTag("tenant"), figure, value);
            }
        }
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("total", total);
        report.put("byLayer", byLayer);
        report.put("byRoute", byRoute);
        report.put("byTenant", byTenant);
        return report;
    }

    private static void add(Map<String, Map<String, Double>> by, String group, String figure, double value) {
        if (group != null) {
            by.computeIfAbsent(group, g -> empty()).merge(figure, value, Double::sum);
        }
    }

    private static Map<String, Double> empty() {
        Map<String, Double> figures = new LinkedHashMap<>();
        for (String figure : FIGURES) {
            figures.put(figure, 0.0);
        }
        return figures;
    }
}
