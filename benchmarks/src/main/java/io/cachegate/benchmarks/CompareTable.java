package io.cachegate.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.IntStream;

/**
 * The figures of {@code bench compare} for one client (wrk or our load generator): per target, the medians
 * over rounds of throughput and latency, and its ratios to the references measured in the same rounds. A
 * ratio is the median of the per-round ratios (round r of the target over round r of the reference), so drift
 * of the shared machine between rounds cancels out instead of entering twice.
 */
final class CompareTable {

    /** nginx proxy_cache keyed on the body: the reference of every ratio to a cache. */
    static final String NGINX_CACHE = "nginx-cache";
    /** nginx as a plain proxy: the reference of plain proxying. */
    static final String NGINX_PROXY = "nginx-proxy";
    /** nginx answering a constant: the ceiling of an HTTP server on the machine. */
    static final String CEILING = "nginx-constant";

    /**
     * One target driven by one client in one round; {@code cpuMicros}: the CPU its serving process used a request
     * (NaN when not measured).
     */
    record Sample(double throughput, double p50Ms, double p99Ms, long requests, long errors, long backendCalls,
                  double cpuMicros) {
    }

    /** A target's medians and ratios; a ratio is NaN when its reference was not measured. */
    record Row(String target, double throughput, double p50Ms, double p99Ms, long errors, double backendPerRequest,
               double cpuMicros, double vsCache, double vsProxy, double vsCeiling, double p99VsCache,
               List<Sample> rounds) {
    }

    private final Map<String, List<Sample>> byTarget;

    /** {@code byTarget}: the samples of each target in round order, targets in the order to print them. */
    CompareTable(Map<String, List<Sample>> byTarget) {
        this.byTarget = new LinkedHashMap<>(byTarget);
    }

    List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        for (Map.Entry<String, List<Sample>> e : byTarget.entrySet()) {
            List<Sample> s = e.getValue();
            long requests = s.stream().mapToLong(Sample::requests).sum();
            long calls = s.stream().mapToLong(Sample::backendCalls).sum();
            rows.add(new Row(e.getKey(), median(s, Sample::throughput), median(s, Sample::p50Ms), median(s, Sample::p99Ms),
                    s.stream().mapToLong(Sample::errors).sum(), requests == 0 ? Double.NaN : (double) calls / requests,
                    Medians.of(s.stream().mapToDouble(Sample::cpuMicros).filter(c -> !Double.isNaN(c))),
                    ratio(s, NGINX_CACHE, Sample::throughput), ratio(s, NGINX_PROXY, Sample::throughput),
                    ratio(s, CEILING, Sample::throughput), ratio(s, NGINX_CACHE, Sample::p99Ms), List.copyOf(s)));
        }
        return rows;
    }

    /** The median over rounds of {@code samples}' value over the reference's in the same round. */
    private double ratio(List<Sample> samples, String reference, ToDoubleFunction<Sample> value) {
        List<Sample> ref = byTarget.get(reference);
        if (ref == null) {
            return Double.NaN;
        }
        int rounds = Math.min(samples.size(), ref.size());
        return Medians.of(IntStream.range(0, rounds)
                .mapToDouble(r -> value.applyAsDouble(samples.get(r)) / value.applyAsDouble(ref.get(r))));
    }

    private static double median(List<Sample> samples, ToDoubleFunction<Sample> value) {
        return Medians.of(samples.stream().mapToDouble(value));
    }
}
