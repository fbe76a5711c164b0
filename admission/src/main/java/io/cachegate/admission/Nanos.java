package io.cachegate.admission;

import java.time.Duration;

/** Duration to nanoseconds without overflow, so a huge configured duration just means "never". */
final class Nanos {

    private Nanos() {
    }

    static long of(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }
}
