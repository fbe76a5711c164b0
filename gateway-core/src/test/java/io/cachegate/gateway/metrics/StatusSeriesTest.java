package io.cachegate.gateway.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.cachegate.testkit.FakeTicker;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Tags;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Exchanges;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The status page's series: rates over each interval, the interval's latency quantiles, a bounded ring. */
class StatusSeriesTest {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final FakeTicker ticker = new FakeTicker();
    private final StatusSeries series = new StatusSeries(registry, ticker);
    private final Exchanges exchanges = new Exchanges(Exchanges.MEMORY_CACHE_POLICY);
    /** Micrometer holds a gauge's object weakly: the test keeps them. */
    private final AtomicInteger queuedA = new AtomicInteger(3);
    private final AtomicInteger queuedB = new AtomicInteger(4);

    @AfterEach
    void close() {
        exchanges.close(); // their own observer is not the series: closing them counts nothing here
    }

    @Test
    void sample_turnsTheFinishedRecordsIntoRatesOverTheInterval() {
        finish(100, null, 1); // before the baseline: totals before it are not a rate
        series.sample();

        finish(15, "exact", 1);
        finish(5, "miss", 1);
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
        finish(100, "exact", 900); // before the baseline: must not count
        series.sample();
        finish(98, "exact", 3);
        finish(2, "exact", 200);
        ticker.advance(Duration.ofSeconds(2));
        series.sample();

        JsonNode latency = series.json().path("points").get(0).path("latencyMillis");
        assertThat(latency.path("hit").path("p50").asDouble()).isBetween(2.9, 3.1);
        assertThat(latency.path("hit").path("p99").asDouble()).isBetween(198.0, 202.0);
        assertThat(latency.path("miss").path("p50").asDouble()).isZero();
    }

    @Test
    void sample_eachTenantsMeanQueueWait_overTheInterval() {
        AdmissionMetrics admission = new AdmissionMetrics(registry, "main");
        admission.onDispatched("interactive", "noisy", Duration.ofSeconds(9), false); // before the baseline
        series.sample();
        admission.onDispatched("interactive", "noisy", Duration.ofMillis(300), false);
        admission.onDispatched("batch", "noisy", Duration.ofMillis(100), false);
        admission.onDispatched("interactive", "quiet", Duration.ofMillis(20), false);
        admission.onDispatched("interactive", "", Duration.ofMillis(5), false); // no tenants: no series
        ticker.advance(Duration.ofSeconds(2));
        series.sample();

        JsonNode waits = series.json().path("points").get(0).path("tenantWaitMillis");
        assertThat(waits.path("noisy").asDouble()).isEqualTo(200.0);
        assertThat(waits.path("quiet").asDouble()).isEqualTo(20.0);
        assertThat(waits.size()).isEqualTo(2);
    }

    /** {@code count} exchanges finished as exact hits, misses, or (null) answers from a backend of no cache. */
    private void finish(int count, String outcome, long millis) {
        for (int i = 0; i < count; i++) {
            Exchange x = exchanges.chat(Exchanges.chatBody("llama-3.1-8b", "q"));
            if ("exact".equals(outcome)) {
                x.record().hit("exact", Double.NaN, "o", 0, 1, 1, null);
                x.xCache(GatewayHeaders.HIT);
            } else if ("miss".equals(outcome)) {
                x.record().missed();
                x.xCache(GatewayHeaders.MISS);
            }
            series.finished(x, 200, TimeUnit.MILLISECONDS.toNanos(millis));
        }
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
