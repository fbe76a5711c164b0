package io.cachegate.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How well one gateway's KV index matched the replicas' truth after a run: per replica, |the gateway's {@code
 * cachegate_kv_index_blocks} - the replica's own {@code kv_blocks}| over the replica's count (the largest over the
 * replicas), read once the replicas are idle; and the p99 of {@code cachegate_kv_event_lag_seconds} from its
 * histogram buckets (an upper bound: the bucket's edge).
 */
record KvIndexAccuracy(double largestError, double lagP99Ms) {

    private static final Pattern BUCKET = Pattern.compile(
            "(?m)^cachegate_kv_event_lag_seconds_bucket\\{[^}]*le=\"([^\"]+)\"[^}]*}\\s+(\\S+)");

    static KvIndexAccuracy read(HttpClient http, ChildGateway gateway, ChildSimulator sim)
            throws IOException, InterruptedException {
        double largest = 0;
        String page = "";
        for (int attempt = 0; attempt < 20; attempt++) { // events still in flight right after the run: settle
            page = BenchScrapes.get(http, gateway.admin().resolve("/metrics"));
            largest = 0;
            for (URI replica : sim.uris()) {
                double held = BenchScrapes.metric(page, "cachegate_kv_index_blocks", "replica=\"" + replica + "\"");
                long truth = BenchScrapes.kvBlocks(http, replica);
                double error = truth == 0 ? (held == 0 ? 0 : 1) : Math.abs(held - truth) / truth;
                largest = Math.max(largest, Double.isNaN(error) ? 1 : error);
            }
            if (largest == 0) {
                break;
            }
            Thread.sleep(100);
        }
        return new KvIndexAccuracy(largest, p99Ms(page));
    }

    /**
     * Milliseconds from {@code late}'s listener accepting connections to its index holding 90% of the replicas'
     * blocks (polled every 20 ms, at most 30 s: NaN beyond).
     */
    static double lateGatewayMillis(HttpClient http, ChildGateway late, ChildSimulator sim)
            throws IOException, InterruptedException {
        LocalProcesses.awaitPort(late.uri().getPort());
        long start = System.nanoTime();
        long truth = 0;
        for (URI replica : sim.uris()) {
            truth += BenchScrapes.kvBlocks(http, replica);
        }
        while (System.nanoTime() - start < 30_000_000_000L) {
            String page;
            try {
                page = BenchScrapes.get(http, late.admin().resolve("/metrics"));
            } catch (IOException notYet) {
                Thread.sleep(20);
                continue;
            }
            double held = 0;
            for (URI replica : sim.uris()) {
                double blocks = BenchScrapes.metric(page, "cachegate_kv_index_blocks", "replica=\"" + replica + "\"");
                held += Double.isNaN(blocks) ? 0 : blocks;
            }
            if (held >= 0.9 * truth) {
                return (System.nanoTime() - start) / 1e6;
            }
            Thread.sleep(20);
        }
        return Double.NaN;
    }

    /**
     * The admission cost model's error over a fleet: the absolute differences between the uncached prompt tokens
     * each request was charged and the backend's own count, summed, over that count's sum (NaN without answers that
     * report cached tokens).
     */
    static double uncachedEstimateError(HttpClient http, List<ChildGateway> fleet)
            throws IOException, InterruptedException {
        double error = 0;
        double actual = 0;
        for (ChildGateway gw : fleet) {
            String page = BenchScrapes.get(http, gw.admin().resolve("/metrics"));
            double e = BenchScrapes.metric(page, "cachegate_admission_uncached_error_tokens_total");
            double a = BenchScrapes.metric(page, "cachegate_admission_uncached_actual_tokens_total");
            error += Double.isNaN(e) ? 0 : e;
            actual += Double.isNaN(a) ? 0 : a;
        }
        return actual == 0 ? Double.NaN : error / actual;
    }

    /** The p99 of the lag histogram in {@code page}, in ms (summed over backends); NaN without samples. */
    static double p99Ms(String page) {
        Map<Double, Double> cumulative = new TreeMap<>();
        Matcher m = BUCKET.matcher(page);
        while (m.find()) {
            double le = m.group(1).equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(m.group(1));
            cumulative.merge(le, Double.parseDouble(m.group(2)), Double::sum);
        }
        double total = cumulative.getOrDefault(Double.POSITIVE_INFINITY, 0.0);
        if (total == 0) {
            return Double.NaN;
        }
        for (Map.Entry<Double, Double> e : cumulative.entrySet()) {
            if (e.getValue() >= 0.99 * total) {
                return e.getKey() * 1000;
            }
        }
        return Double.NaN;
    }
}
