package io.cachegate.gateway.exchange;

/**
 * A cache lookup still deciding while the stages after it go on ({@code cache.semantic.speculative_upstream}): they
 * may start the upstream call into idle capacity, but nothing they cannot take back (following another request's
 * call, waiting in a queue, writing to the client, an error answer) happens before the lookup decides. Such a step
 * parks here; a miss runs it, a hit drops it and first undoes what started (the call in flight, cancelled), so the
 * cache can answer instead. A whole answer that arrives before the lookup decides goes to the client at once
 * ({@link #commit}): holding it would save the backend nothing. Confined to the exchange's event loop.
 */
public final class Speculation {

    private boolean decided;
    private boolean committed;
    private Runnable parked;
    private Runnable undo;
    private String outcome;

    /** Starts a speculation on {@code x}: the stages after the caller see it pending until it is decided. */
    public static Speculation start(Exchange x) {
        Speculation s = new Speculation();
        x.speculation = s;
        return s;
    }

    /** The speculation started on {@code x}, or null: a field of the exchange, as every stage asks for it. */
    public static Speculation of(Exchange x) {
        return x.speculation;
    }

    /** Whether a lookup of {@code x} is still deciding. */
    public static boolean pending(Exchange x) {
        Speculation s = x.speculation;
        return s != null && !s.decided;
    }

    /**
     * Runs {@code step} now when nothing is pending; else once the lookup misses (never, when it hits). The
     * exchange is in one place at a time, so one step parks at a time.
     */
    public static void afterDecision(Exchange x, Runnable step) {
        Speculation s = x.speculation;
        if (s == null || s.decided) {
            step.run();
            return;
        }
        s.parked = step;
    }

    /** While pending, what a hit must undo first (a call in flight); replaced by the next holder's. */
    public static void onHit(Exchange x, Runnable undoIt) {
        Speculation s = x.speculation;
        if (s != null && !s.decided) {
            s.undo = undoIt;
        }
    }

    /** The lookup missed: the parked step, if any, goes on. True when a call was under way already. */
    public boolean miss() {
        Runnable step = parked;
        boolean started = undo != null;
        decide();
        outcome = started ? "used" : "waited";
        if (step != null) {
            step.run();
        }
        return started;
    }

    /**
     * The lookup hit: what started is undone and the parked step dropped; the caller answers from the cache. True
     * when a call was under way (and is now cancelled).
     */
    public boolean hit() {
        Runnable undoIt = undo;
        decide();
        outcome = undoIt != null ? "cancelled" : "not_started";
        if (undoIt != null) {
            undoIt.run();
        }
        return undoIt != null;
    }

    /**
     * The call's answer goes to the client before the lookup decided (it came whole, so nothing is left to save):
     * the lookup can no longer answer, and its outcome counts as a miss.
     */
    public static void commit(Exchange x) {
        Speculation s = x.speculation;
        if (s != null && !s.decided) {
            s.decide();
            s.committed = true;
            s.outcome = "answered_first";
        }
    }

    /** Decided: nothing parks or waits to be undone any more. */
    private void decide() {
        decided = true;
        parked = null;
        undo = null;
    }

    /** Whether the lookup has decided, or the call's answer went first. */
    public boolean decided() {
        return decided;
    }

    /**
     * What became of the speculation, as {@code cachegate_semantic_speculations_total} names it: {@code used} (a
     * miss whose call was under way), {@code waited} (a miss, nothing started), {@code cancelled} or
     * {@code not_started} (a hit), {@code answered_first} (the call's whole answer came first); null undecided.
     */
    public String outcome() {
        return outcome;
    }

    /** Whether the call's answer went to the client before the lookup decided. */
    public boolean committed() {
        return committed;
    }
}
