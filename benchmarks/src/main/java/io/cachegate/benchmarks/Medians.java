package io.cachegate.benchmarks;

import java.util.stream.DoubleStream;

/** The median the benchmarks report over their rounds (NaN for no value). */
final class Medians {

    private Medians() {
    }

    static double of(DoubleStream values) {
        double[] v = values.sorted().toArray();
        int n = v.length;
        return n == 0 ? Double.NaN : n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
}
