package io.cachegate.gateway.exchange;

import io.cachegate.config.Ticker;

/**
 * When an exchange entered and left each stage of the chain, stamped by {@link StageChain} (no stage stamps
 * itself): what the stage metrics and the trace's stage spans are made of. A stage left in a later task than it
 * was entered in <em>held</em> the exchange (a store lookup, a queue, a wait); one in which the exchange finished
 * <em>answered</em> it. Confined to the exchange's event loop.
 */
public final class StageStamps {

    /** No stage at all: an exchange answered outside the chain (a test's). */
    static final StageStamps NONE = new StageStamps(new String[0], new String[0]);

    private final String[] names;
    private final String[] spanNames;
    private final long[] entered;
    private final long[] left;
    private final byte[] flags;
    private static final byte HELD = 1;
    private static final byte ANSWERED = 2;
    private static final byte ENTERED = 4;
    private static final byte LEFT = 8;
    private int current = -1;
    /** The tick a stage passed the exchange on at, which is when the next one enters: one clock read, not two. */
    private long handOff;
    private boolean handedOff;

    StageStamps(String[] names, String[] spanNames) {
        this.names = names;
        this.spanNames = spanNames;
        this.entered = new long[names.length];
        this.left = new long[names.length];
        this.flags = new byte[names.length];
    }

    /** What an observer sees of one stage the exchange went through. */
    public interface Visitor {
        /**
         * @param spanName the name of its span in a trace ({@link Stage#spanName()})
         * @param held the stage kept the exchange past its {@code handle} call
         * @param answered the exchange finished while in it
         */
        void stage(String name, String spanName, long enteredNanos, long leftNanos, boolean held, boolean answered);
    }

    /** The exchange enters {@code stage}: at the tick the previous stage handed it on, else now. */
    void enter(int stage, Ticker ticker) {
        long nanos = handedOff ? handOff : ticker.nanos();
        handedOff = false;
        current = stage;
        if ((flags[stage] & ENTERED) == 0) {
            entered[stage] = nanos; // a stage run again after a parked decision keeps its first entry
            flags[stage] |= ENTERED;
        }
    }

    /** The stage's {@code handle} returned without passing the exchange on: it holds it. */
    void returned(int stage) {
        if (current == stage) {
            flags[stage] |= HELD;
        }
    }

    void leave(int stage, long nanos) {
        handOff = nanos;
        handedOff = true;
        left[stage] = nanos;
        flags[stage] |= LEFT;
        if (current == stage) {
            current = -1;
        }
    }

    /** The exchange finished: the stage it was in answered it. */
    void finished(long nanos) {
        if (current >= 0 && (flags[current] & LEFT) == 0) {
            left[current] = nanos;
            flags[current] |= ANSWERED | LEFT;
            current = -1;
        }
    }

    /**
     * What identifies the chain these stamps are of: the same object for every exchange through one chain, so an
     * observer can keep what it holds per stage by its index instead of looking up each stage's name.
     */
    public Object chain() {
        return names;
    }

    /** How many stages the chain has. */
    public int size() {
        return names.length;
    }

    /** Whether the exchange entered and left the stage at {@code index} (its time is known). */
    public boolean timed(int index) {
        return (flags[index] & (ENTERED | LEFT)) == (ENTERED | LEFT);
    }

    /** The name of the stage at {@code index}. */
    public String name(int index) {
        return names[index];
    }

    /** The time from entering the stage at {@code index} to leaving it; for a {@link #timed} one. */
    public long elapsedNanos(int index) {
        return left[index] - entered[index];
    }

    /** Every stage entered, in chain order. */
    public void forEach(Visitor visitor) {
        for (int i = 0; i < names.length; i++) {
            if (timed(i)) {
                visitor.stage(names[i], spanNames[i], entered[i], left[i], (flags[i] & HELD) != 0, (flags[i] & ANSWERED) != 0);
            }
        }
    }
}
