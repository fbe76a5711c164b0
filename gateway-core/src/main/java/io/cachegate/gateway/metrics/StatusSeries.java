package io.cachegate.gateway.metrics;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.config.Ticker;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.ExchangeObserver;
import io.cachegate.gateway.exchange.ExchangeRecord;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The recent past for the status page: an observer of every finished exchange's record (requests, hits by layer,
 * misses, bypasses, savings, latency by cache outcome) whose totals {@link #sample()} turns, every few seconds, into
 * one point (rates over the interval, the interval's latency quantiles, with the admission queues' depths and
 * rejections read from their gauges) kept in a ring of {@value #CAPACITY} points, so the page charts the last
 * minutes without a Prometheus server. Observing is a few adds; the ring is bounded.
 */
public final class StatusSeries implements ExchangeObserver {

    static final int CAPACITY = 180;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final double[] QUANTILES = {0.5, 0.99};

    private final MeterRegistry registry;
    private final Ticker ticker;
    private final ArrayDeque<ObjectNode> points = new ArrayDeque<>(CAPACITY);
    /** Totals at the previous sample, to turn totals into the interval's rates. */
    private final Map<String, Double> lastTotals = new HashMap<>();
    private final LongAdder requests = new LongAdder();
    private final LongAdder exactHits = new LongAdder();
    private final LongAdder semanticHits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder bypasses = new LongAdder();
    private final DoubleAdder tokensSaved = new DoubleAdder();
    private final DoubleAdder costSaved = new DoubleAdder();
    /** The latencies of the interval's hits and misses, in microseconds (HdrHistogram, 2 significant digits). */
    private final Recorder hitMicros = new Recorder(2);
    private final Recorder missMicros = new Recorder(2);
    private long lastNanos;
    private boolean started;

    StatusSeries(MeterRegistry registry, Ticker ticker) {
        this.registry = registry;
        this.ticker = ticker;
    }

    @Override
    public void finished(Exchange x, int status, long nanos) {
        ExchangeRecord r = x.record();
        requests.increment();
        if ("exact".equals(r.layer())) {
            exactHits.increment();
        } else if ("semantic".equals(r.layer())) {
            semanticHits.increment();
        } else if (r.isMiss()) {
            misses.increment();
        }
        if (r.bypass() != null) {
            bypasses.increment();
        }
        tokensSaved.add(r.tokensSaved());
        costSaved.add(r.costSaved());
        if (status < 400) { // as the request metrics' cache outcome: an error answer is neither
            String outcome = GatewayHeaders.outcome(x.xCache());
            Recorder latency = outcome.equals("hit") ? hitMicros : outcome.equals("miss") ? missMicros : null;
            if (latency != null) {
                latency.recordValue(Math.max(0, nanos / 1000));
            }
        }
    }

    /** Adds one point; the first call only sets the baseline. */
    public synchronized void sample() {
        long now = ticker.nanos();
        double seconds = (now - lastNanos) / 1e9;
        boolean baseline = !started;
        started = true;
        lastNanos = now;
        ObjectNode point = JSON.createObjectNode().put("t", ticker.wallMillis());
        point.put("requests", rate("requests", requests.sum(), seconds))
                .put("exactHits", rate("exact", exactHits.sum(), seconds))
                .put("semanticHits", rate("semantic", semanticHits.sum(), seconds))
                .put("misses", rate("misses", misses.sum(), seconds))
                .put("bypasses", rate("bypasses", bypasses.sum(), seconds))
                .put("tokensSaved", rate("tokens", tokensSaved.sum(), seconds))
                // Per hour: a few hits a second save fractions of a cent each, which would round to 0 per second.
                .put("costSavedPerHour", rate("cost", 3600 * costSaved.sum(), seconds))
                .put("overloaded", max("cachegate.admission.overloaded"))
                .put("inFlight", max("cachegate.requests.inflight"));
        double hits = point.path("exactHits").asDouble() + point.path("semanticHits").asDouble();
        double lookups = hits + point.path("misses").asDouble();
        point.put("hitRatio", lookups == 0 ? 0 : round(hits / lookups));
        ObjectNode latency = point.putObject("latencyMillis");
        quantiles(latency.putObject("hit"), hitMicros.getIntervalHistogram());
        quantiles(latency.putObject("miss"), missMicros.getIntervalHistogram());
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
        tenantWaits(point.putObject("tenantWaitMillis"), baseline);
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

    /**
     * Each tenant's mean queue wait over the interval, in milliseconds, of the requests admitted in it; a tenant
     * first seen after the baseline counts from zero.
     */
    private void tenantWaits(ObjectNode into, boolean baseline) {
        Map<String, double[]> byTenant = new TreeMap<>(); // count, total milliseconds
        for (Timer t : registry.find("cachegate.tenant.queue.wait").timers()) {
            double[] sums = byTenant.computeIfAbsent(t.getId().getTag("tenant"), k -> new double[2]);
            sums[0] += t.count();
            sums[1] += t.totalTime(TimeUnit.MILLISECONDS);
        }
        byTenant.forEach((tenant, sums) -> {
            Double lastCount = lastTotals.put("waitCount|" + tenant, sums[0]);
            Double lastMillis = lastTotals.put("waitMillis|" + tenant, sums[1]);
            if (baseline) {
                return;
            }
            double admitted = sums[0] - (lastCount == null ? 0 : lastCount);
            if (admitted > 0) {
                into.put(tenant, round((sums[1] - (lastMillis == null ? 0 : lastMillis)) / admitted));
            }
        });
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

    /** p50 and p99 in milliseconds of the interval's requests of one cache outcome; 0 without any. */
    private static void quantiles(ObjectNode into, Histogram interval) {
        for (double q : QUANTILES) {
            double millis = interval.getTotalCount() == 0 ? 0 : interval.getValueAtPercentile(q * 100) / 1000.0;
            into.put(q == 0.5 ? "p50" : "p99", round(millis));
        }
    }

    private static double round(double value) {
        return Math.round(value * 1000) / 1000.0;
    }
}
