package io.cachegate.gateway.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.cachegate.testkit.FakeTicker;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The status page's series: rates over each interval, the interval's latency quantiles, a bounded ring. */
class StatusSeriesTest {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final FakeTicker ticker = new FakeTicker();
    private final StatusSeries series = new StatusSeries(registry, ticker);
    /** Micrometer holds a gauge's object weakly: the test keeps them. */
    private final AtomicInteger queuedA = new AtomicInteger(3);
    private final AtomicInteger queuedB = new AtomicInteger(4);

    @Test
    void sample_turnsCounterTotalsIntoRatesOverTheInterval() {
        Counter requests = Counter.builder("cachegate.requests").tag("status", "200").register(registry);
        Counter exactHits = Counter.builder("cachegate.cache.lookups").tag("layer", "exact").tag("outcome", "hit")
                .register(registry);
        Counter exactMisses = Counter.builder("cachegate.cache.lookups").tag("layer", "exact").tag("outcome", "miss")
                .register(registry);
        Counter misses = Counter.builder("cachegate.cache.misses").register(registry);
        requests.increment(100);
        series.sample(); // the baseline: totals before it are not a rate

        requests.increment(20);
        exactHits.increment(15);
        exactMisses.increment(5);
        misses.increment(5);
        ticker.advance(Duration.ofSeconds(2));
        series.sample();

        JsonNode points = series.json().path("points");
        assertThat(points).hasSize(1);
        JsonNode p = points.get(0);
        assertThat(p.path("requests").asDouble()).isEqualTo(10.0);
        assertThat(p.path("exactHits").asDouble()).isEqualTo(7.5);
        assertThat(p.path("misses").asDouble()).isEqualTo(2.5);
        assertThat(p.path("hitRatio").asDouble()).isEqualTo(0.75);
    }

    @Test
    void sample_latencyQuantilesAreThoseOfTheIntervalsRequests() {
        Timer hits = Timer.builder("cachegate.request.duration").tag("endpoint", "chat").tag("cache", "hit")
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(10)).register(registry);
        for (int i = 0; i < 100; i++) {
            hits.record(900, TimeUnit.MILLISECONDS); // before the baseline: must not count
        }
        series.sample();
        for (int i = 0; i < 100; i++) {
            hits.record(i < 98 ? 3 : 200, TimeUnit.MILLISECONDS);
        }
        ticker.advance(Duration.ofSeconds(2));
        series.sample();

        JsonNode latency = series.json().path("points").get(0).path("latencyMillis");
        assertThat(latency.path("hit").path("p50").asDouble()).isBetween(2.0, 4.0);
        assertThat(latency.path("hit").path("p99").asDouble()).isBetween(150.0, 250.0);
        assertThat(latency.path("miss").path("p50").asDouble()).isZero();
    }

    @Test
    void sample_queuesAndRejectionsByClass() {
        registry.gauge("cachegate.queue.depth", Tags.of("backend", "a", "class", "batch"), queuedA);
        registry.gauge("cachegate.queue.depth", Tags.of("backend", "b", "class", "batch"), queuedB);
        Counter rejected = Counter.builder("cachegate.admission.rejections").tag("backend", "a").tag("class", "batch")
                .tag("reason", "queue_full").register(registry);
        series.sample();
        rejected.increment(6);
        ticker.advance(Duration.ofSeconds(3));
        series.sample();

        JsonNode p = series.json().path("points").get(0);
        assertThat(p.path("queued").path("batch").asDouble()).isEqualTo(7.0);
        assertThat(p.path("rejected").path("batch").asDouble()).isCloseTo(2.0, within(1e-9));
    }

    @Test
    void ring_keepsTheLastPointsOnly() {
        for (int i = 0; i <= StatusSeries.CAPACITY + 20; i++) {
            ticker.advance(Duration.ofSeconds(2));
            series.sample();
        }
        JsonNode points = series.json().path("points");
        assertThat(points).hasSize(StatusSeries.CAPACITY);
        assertThat(points.get(points.size() - 1).path("t").asLong()).isEqualTo(ticker.wallMillis());
    }
}
