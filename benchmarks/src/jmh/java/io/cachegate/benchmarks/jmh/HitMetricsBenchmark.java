package io.cachegate.benchmarks.jmh;

import io.cachegate.gateway.metrics.GatewayMetrics;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What the gateway's metrics cost one exact-cache hit, on the event loop: the lookup outcome, the savings of the
 * hit and the finished request (counter and timer), each meter found in its map by a key of the labels.
 */
public class HitMetricsBenchmark extends JmhDefaults {

    private GatewayMetrics metrics;

    @Setup
    public void setUp() {
        metrics = new GatewayMetrics();
        recordHit(); // the meters exist after the first request, as in a running gateway
    }

    @TearDown
    public void tearDown() {
        metrics.close();
    }

    @Benchmark
    public GatewayMetrics recordHit() {
        metrics.cacheLookup("exact", "hit");
        metrics.cacheHit("exact", "0", "acme", 17, 64);
        metrics.requestStarted();
        metrics.requestFinished("0", "chat", 200, "hit", 150_000);
        return metrics;
    }
}
