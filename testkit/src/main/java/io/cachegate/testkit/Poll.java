package io.cachegate.testkit;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;

/** Waits for a condition with a deadline instead of sleeping a fixed time. */
public final class Poll {

    private Poll() {
    }

    public static boolean until(Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return true;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return condition.getAsBoolean();
    }

    /** As {@link #until(Duration, BooleanSupplier)}, for a condition that reads over the network and may throw. */
    public static boolean untilChecked(Duration timeout, Callable<Boolean> condition) {
        return until(timeout, () -> {
            try {
                return condition.call();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }
}
