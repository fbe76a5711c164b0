package io.cachegate.gateway.metrics;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.config.Ticker;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The recent past for the status page: every few seconds {@link #sample()} turns the gateway's meters into one point
 * (rates over the interval, latency quantiles of the interval's requests, queue depths) kept in a ring of
 * {@value #CAPACITY} points, so the page charts the last minutes without a Prometheus server. Reading the meters is
 * cheap and never blocks; the ring is the only state, and it is bounded.
 */
public final class StatusSeries {

    static final int CAPACITY = 180;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final double[] QUANTILES = {0.5, 0.99};

    private final MeterRegistry registry;
    private final Ticker ticker;
    private final ArrayDeque<ObjectNode> points = new ArrayDeque<>(CAPACITY);
    /** Counter totals and latency histograms at the previous sample, to turn totals into the interval's values. */
    private final Map<String, Double> lastTotals = new HashMap<>();
    private final Map<String, TreeMap<Double, Double>> lastHistograms = new HashMap<>();
    private long lastNanos;
    private boolean started;

    StatusSeries(MeterRegistry registry, Ticker ticker) {
        this.registry = registry;
        this.ticker = ticker;
    }

    /** Adds one point; the first call only sets the baseline. */
    public synchronized void sample() {
        long now = ticker.nanos();
        double seconds = (now - lastNanos) / 1e9;
        boolean baseline = !started;
        started = true;
        lastNanos = now;
        ObjectNode point = JSON.createObjectNode().put("t", ticker.wallMillis());
        point.put("requests", rate("requests", sum("cachegate.requests"), seconds))
                .put("exactHits", rate("exact", sum("cachegate.cache.lookups", "layer", "exact", "outcome", "hit"),
                        seconds))
                .put("semanticHits", rate("semantic", sum("cachegate.cache.lookups", "layer", "semantic", "outcome",
                        "hit"), seconds))
                .put("misses", rate("misses", sum("cachegate.cache.misses"), seconds))
                .put("bypasses", rate("bypasses", sum("cachegate.cache.bypass"), seconds))
                .put("tokensSaved", rate("tokens", sum("cachegate.cache.tokens.saved"), seconds))
                // Per hour: a few hits a second save fractions of a cent each, which would round to 0 per second.
                .put("costSavedPerHour", rate("cost", 3600 * sum("cachegate.cache.cost.saved"), seconds))
                .put("overloaded", max("cachegate.admission.overloaded"))
                .put("inFlight", max("cachegate.requests.inflight"));
        double hits = point.path("exactHits").asDouble() + point.path("semanticHits").asDouble();
        double lookups = hits + point.path("misses").asDouble();
        point.put("hitRatio", lookups == 0 ? 0 : round(hits / lookups));
        ObjectNode latency = point.putObject("latencyMillis");
        for (String outcome : new String[] {"hit", "miss"}) {
            ObjectNode q = latency.putObject(outcome);
            double[] values = quantiles(outcome);
            q.put("p50", values[0]).put("p99", values[1]);
        }
        ObjectNode queued = point.putObject("queued");
        for (Gauge g : registry.find("cachegate.queue.depth").gauges()) {
            String c = g.getId().getTag("class");
            queued.put(c, queued.path(c).asDouble() + g.value());
        }
        ObjectNode rejected = point.putObject("rejected");
        Map<String, Double> byClass = new TreeMap<>();
        for (Counter c : registry.find("cachegate.admission.rejections").counters()) {
            byClass.merge(c.getId().getTag("class"), c.count(), Double::sum);
        }
        byClass.forEach((c, total) -> rejected.put(c, rate("rejected|" + c, total, seconds)));
        if (baseline) {
            return;
        }
        if (points.size() == CAPACITY) {
            points.removeFirst();
        }
        points.addLast(point);
    }

    /** The ring as {@code {"points":[…],"similarity":[{"le","count"}…]}}. */
    public synchronized ObjectNode json() {
        ObjectNode out = JSON.createObjectNode();
        ArrayNode list = out.putArray("points");
        points.forEach(list::add);
        ArrayNode similarity = out.putArray("similarity");
        DistributionSummary hits = registry.find("cachegate.semantic.similarity").tag("result", "hit").summary();
        if (hits != null) {
            double below = 0;
            for (CountAtBucket b : hits.takeSnapshot().histogramCounts()) {
                similarity.addObject().put("le", b.bucket()).put("count", b.count() - below);
                below = b.count();
            }
        }
        return out;
    }

    /** Per second over the interval; remembers {@code total} for the next sample. */
    private double rate(String key, double total, double seconds) {
        Double last = lastTotals.put(key, total);
        if (last == null || seconds <= 0) {
            return 0;
        }
        return round(Math.max(0, total - last) / seconds);
    }

    /** The total of every counter named {@code name} whose tags match the given pairs. */
    private double sum(String name, String... tags) {
        double total = 0;
        for (Meter m : registry.find(name).meters()) {
            if (!matches(m, tags)) {
                continue;
            }
            if (m instanceof Counter c) {
                total += c.count();
            } else if (m instanceof FunctionCounter f) {
                total += f.count();
            }
        }
        return total;
    }

    private static boolean matches(Meter m, String... tags) {
        for (int i = 0; i + 1 < tags.length; i += 2) {
            if (!tags[i + 1].equals(m.getId().getTag(tags[i]))) {
                return false;
            }
        }
        return true;
    }

    private double max(String name) {
        double max = 0;
        for (Gauge g : registry.find(name).gauges()) {
            double v = g.value();
            if (!Double.isNaN(v)) {
                max = Math.max(max, v);
            }
        }
        return max;
    }

    /**
     * p50 and p99 in milliseconds of the requests with this cache outcome that finished during the interval: the
     * difference of the cumulative histograms of this sample and the last, interpolated inside a bucket.
     */
    private double[] quantiles(String outcome) {
        TreeMap<Double, Double> now = new TreeMap<>();
        for (Timer t : registry.find("cachegate.request.duration").tag("cache", outcome).timers()) {
            for (CountAtBucket b : t.takeSnapshot().histogramCounts()) {
                now.merge(b.bucket(TimeUnit.MILLISECONDS), b.count(), Double::sum);
            }
        }
        TreeMap<Double, Double> last = lastHistograms.put(outcome, now);
        double[] result = new double[QUANTILES.length];
        if (last == null || now.isEmpty()) {
            return result;
        }
        double total = now.lastEntry().getValue() - last.getOrDefault(now.lastKey(), 0.0);
        if (total <= 0) {
            return result;
        }
        for (int i = 0; i < QUANTILES.length; i++) {
            double rank = QUANTILES[i] * total;
            double lowerBound = 0;
            double below = 0;
            for (Map.Entry<Double, Double> e : now.entrySet()) {
                double cumulative = e.getValue() - last.getOrDefault(e.getKey(), 0.0);
                if (cumulative >= rank) {
                    double inBucket = cumulative - below;
                    double fraction = inBucket <= 0 ? 1 : (rank - below) / inBucket;
                    result[i] = round(lowerBound + fraction * (e.getKey() - lowerBound));
                    break;
                }
                lowerBound = e.getKey();
                below = cumulative;
            }
        }
        return result;
    }

    private static double round(double value) {
        return Math.round(value * 1000) / 1000.0;
    }
}
