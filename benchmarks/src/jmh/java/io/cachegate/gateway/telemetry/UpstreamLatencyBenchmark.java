package io.cachegate.gateway.telemetry;

import io.cachegate.benchmarks.jmh.JmhDefaults;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;

/**
 * What every upstream answer costs the savings estimate: one sample into its route's window of recent upstream
 * times (whose median is re-sorted now and then). In {@code UpstreamLatency}'s package because the class is
 * telemetry's own.
 */
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class UpstreamLatencyBenchmark extends JmhDefaults {

    private final UpstreamLatency latency = new UpstreamLatency();
    private long n;

    @Benchmark
    public void answered() {
        latency.answered("route-0", 80_000_000L + (n++ * 7919) % 10_000_000L);
    }
}
