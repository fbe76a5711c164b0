package io.cachegate.benchmarks;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The cumulative buckets of one Prometheus histogram as scraped from a {@code /metrics} page, so a benchmark
 * can take the difference of two scrapes and read quantiles of what happened in between (to the bucket's upper
 * bound: an estimate no finer than the buckets).
 */
final class PrometheusHistogram {

    private final TreeMap<Double, Double> cumulative;

    private PrometheusHistogram(TreeMap<Double, Double> cumulative) {
        this.cumulative = cumulative;
    }

    /** The buckets of {@code name} (without {@code _bucket}) in {@code page}, summed over its label sets. */
    static PrometheusHistogram parse(String page, String name) {
        Pattern line = Pattern.compile("(?m)^" + Pattern.quote(name) + "_bucket\\{([^}]*)}\\s+(\\S+)");
        Pattern le = Pattern.compile("(?:^|,)le=\"([^\"]+)\"");
        TreeMap<Double, Double> buckets = new TreeMap<>();
        Matcher m = line.matcher(page);
        while (m.find()) {
            Matcher bound = le.matcher(m.group(1));
            if (bound.find()) {
                double upper = "+Inf".equals(bound.group(1)) ? Double.POSITIVE_INFINITY : Double.parseDouble(bound.group(1));
                buckets.merge(upper, Double.parseDouble(m.group(2)), Double::sum);
            }
        }
        return new PrometheusHistogram(buckets);
    }

    /** What was recorded after {@code earlier} and up to this scrape. */
    PrometheusHistogram minus(PrometheusHistogram earlier) {
        TreeMap<Double, Double> diff = new TreeMap<>();
        for (Map.Entry<Double, Double> e : cumulative.entrySet()) {
            diff.put(e.getKey(), e.getValue() - earlier.cumulative.getOrDefault(e.getKey(), 0.0));
        }
        return new PrometheusHistogram(diff);
    }

    /** The same buckets plus {@code other}'s. */
    PrometheusHistogram plus(PrometheusHistogram other) {
        TreeMap<Double, Double> sum = new TreeMap<>(cumulative);
        other.cumulative.forEach((k, v) -> sum.merge(k, v, Double::sum));
        return new PrometheusHistogram(sum);
    }

    static PrometheusHistogram empty() {
        return new PrometheusHistogram(new TreeMap<>());
    }

    double count() {
        return cumulative.isEmpty() ? 0 : cumulative.lastEntry().getValue();
    }

    /** The upper bound of the bucket holding quantile {@code q} (0..1); NaN when empty. */
    double quantile(double q) {
        double total = count();
        if (total <= 0) {
            return Double.NaN;
        }
        double rank = Math.ceil(q * total);
        for (Map.Entry<Double, Double> e : cumulative.entrySet()) {
            if (e.getValue() >= rank) {
                return e.getKey();
            }
        }
        return Double.POSITIVE_INFINITY;
    }
}
