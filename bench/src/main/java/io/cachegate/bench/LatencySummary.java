package io.cachegate.bench;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import org.HdrHistogram.Histogram;

/**
 * Percentiles of one latency histogram, in milliseconds with microsecond resolution (HdrHistogram,
 * three significant digits). All zero when nothing was recorded.
 */
@JsonPropertyOrder({"count", "meanMs", "p50Ms", "p90Ms", "p99Ms", "p999Ms", "maxMs"})
public record LatencySummary(long count, double meanMs, double p50Ms, double p90Ms, double p99Ms, double p999Ms,
                             double maxMs) {

    static final LatencySummary EMPTY = new LatencySummary(0, 0, 0, 0, 0, 0, 0);

    /** Summarises a histogram of microsecond values. */
    static LatencySummary ofMicros(Histogram histogram) {
        if (histogram.getTotalCount() == 0) {
            return EMPTY;
        }
        return new LatencySummary(histogram.getTotalCount(),
                Math.round(histogram.getMean()) / 1000.0,
                histogram.getValueAtPercentile(50.0) / 1000.0,
                histogram.getValueAtPercentile(90.0) / 1000.0,
                histogram.getValueAtPercentile(99.0) / 1000.0,
                histogram.getValueAtPercentile(99.9) / 1000.0,
                histogram.getMaxValue() / 1000.0);
    }
}
