package io.cachegate.cache.exact;

import java.util.Arrays;

/**
 * Which of one writer's sequence numbers a reader has taken, among the last {@link #SIZE} up to the highest: a number
 * is taken once, in any order inside the window, and never when it lies below it. So a record appended again after
 * an append that timed out but had landed is taken once, and a copy of an old record is refused. Not thread-safe.
 */
final class SequenceWindow {

    /** What became of a number offered. */
    enum Offer {
        /** Not seen before: take the record. */
        TAKEN,
        /** Taken already, inside the window: a second copy of one record (an append sent again, or a replay). */
        COPY,
        /** Below the window: no append is sent again this late, so it is a replay. */
        TOO_OLD
    }

    /** Numbers remembered below the highest taken; a retried record must come back within this many. */
    static final int SIZE = 4096;

    /** Bit {@code n % SIZE} set: {@code n} taken, for {@code n} in (highest - SIZE, highest]. */
    private final long[] taken = new long[SIZE / Long.SIZE];
    private long highest = Long.MIN_VALUE;

    /**
     * A window that has taken every number up to {@code highest}: a reader resuming after a saved position, which
     * cannot tell which numbers below its highest it had taken, so takes none of them again (a retry landing after
     * the restart is lost rather than counted twice).
     */
    static SequenceWindow takenUpTo(long highest) {
        SequenceWindow window = new SequenceWindow();
        window.highest = highest;
        Arrays.fill(window.taken, -1L);
        return window;
    }

    /** Takes {@code n} the first time it is offered within the window. */
    Offer take(long n) {
        if (highest == Long.MIN_VALUE || n > highest) {
            long from = highest == Long.MIN_VALUE ? n - SIZE : highest;
            for (long cleared = Math.max(from + 1, n - SIZE + 1); cleared <= n; cleared++) {
                set(cleared, false); // the numbers the window slides over were never seen
            }
            highest = n;
            set(n, true);
            return Offer.TAKEN;
        }
        if (n <= highest - SIZE) {
            return Offer.TOO_OLD;
        }
        if (isSet(n)) {
            return Offer.COPY;
        }
        set(n, true);
        return Offer.TAKEN;
    }

    private boolean isSet(long n) {
        int bit = (int) Math.floorMod(n, (long) SIZE);
        return (taken[bit >>> 6] & (1L << bit)) != 0;
    }

    private void set(long n, boolean value) {
        int bit = (int) Math.floorMod(n, (long) SIZE);
        if (value) {
            taken[bit >>> 6] |= 1L << bit;
        } else {
            taken[bit >>> 6] &= ~(1L << bit);
        }
    }
}
