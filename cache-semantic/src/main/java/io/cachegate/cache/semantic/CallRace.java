package io.cachegate.cache.semantic;

import java.util.Arrays;

/**
 * Which of two calls runs faster on this machine now: the two run in turn, pair after pair, the first of a pair
 * alternating, so that the machine's load falls on both alike; they are compared by the median of the pairs'
 * ratios, so that a call the load stretched does not decide.
 */
final class CallRace {

    /** A call to time; what it returns is dropped. */
    @FunctionalInterface
    interface Call {
        void run() throws Exception;
    }

    /**
     * How the race went.
     *
     * @param ratio the median of first ÷ second over the pairs: under 1, the first is faster
     * @param firstNanos  the first call's median
     * @param secondNanos the second call's median
     */
    record Outcome(double ratio, long firstNanos, long secondNanos) {

        boolean firstFaster() {
            return ratio < 1;
        }
    }

    private CallRace() {
    }

    /**
     * Runs each call once untimed (a session's first call at a new shape allocates), then {@code pairs} timed pairs.
     *
     * @throws Exception what a call throws
     */
    static Outcome race(Call first, Call second, int pairs) throws Exception {
        if (pairs < 1) {
            throw new IllegalArgumentException("pairs must be at least 1: " + pairs);
        }
        first.run();
        second.run();
        long[] a = new long[pairs];
        long[] b = new long[pairs];
        for (int pair = 0; pair < pairs; pair++) {
            if (pair % 2 == 0) {
                a[pair] = timed(first);
                b[pair] = timed(second);
            } else {
                b[pair] = timed(second);
                a[pair] = timed(first);
            }
        }
        return outcome(a, b);
    }

    /** The outcome of pairs already timed: {@code first[i]} and {@code second[i]} ran side by side. */
    static Outcome outcome(long[] first, long[] second) {
        if (first.length != second.length || first.length == 0) {
            throw new IllegalArgumentException("one time of each call a pair: " + first.length + " and " + second.length);
        }
        double[] ratios = new double[first.length];
        for (int i = 0; i < first.length; i++) {
            ratios[i] = (double) Math.max(1, first[i]) / Math.max(1, second[i]);
        }
        Arrays.sort(ratios);
        int n = ratios.length;
        double ratio = n % 2 == 1 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2;
        return new Outcome(ratio, median(first), median(second));
    }

    private static long timed(Call call) throws Exception {
        long start = System.nanoTime();
        call.run();
        return System.nanoTime() - start;
    }

    private static long median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
