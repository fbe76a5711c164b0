package io.cachegate.benchmarks;

import io.cachegate.bench.BenchReport;
import io.cachegate.bench.LatencySummary;
import java.util.List;
import java.util.function.ToDoubleFunction;
import java.util.stream.DoubleStream;

/** The median the benchmarks report over their rounds (NaN for no value). */
final class Medians {

    private Medians() {
    }

    /** The median over rounds of {@code percentile} of each round's report {@code side}. */
    static double ofSide(List<BenchReport[]> rounds, int side, ToDoubleFunction<LatencySummary> percentile) {
        return of(rounds.stream().mapToDouble(r -> percentile.applyAsDouble(r[side].total())));
    }

    /** The median over rounds of what report {@code side} adds to report {@code base} at {@code percentile}. */
    static double added(List<BenchReport[]> rounds, int side, int base, ToDoubleFunction<LatencySummary> percentile) {
        return of(rounds.stream().mapToDouble(
                r -> percentile.applyAsDouble(r[side].total()) - percentile.applyAsDouble(r[base].total())));
    }

    static double of(DoubleStream values) {
        double[] v = values.sorted().toArray();
        int n = v.length;
        return n == 0 ? Double.NaN : n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
}
