package io.cachegate.gateway.dispatch;

import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.kv.KvHold;
import java.util.concurrent.TimeUnit;

/**
 * Waits out a {@link KvHold} on the exchange's event loop: looks at the replica's blocks every {@value #POLL_MILLIS}
 * ms (a few hash lookups; the subscriber's thread stores them) until the hold is over, then goes on. A client that
 * left meanwhile is finished by the exchange itself; the wait then just stops.
 */
final class KvHoldWait {

    static final long POLL_MILLIS = 5;

    private final Exchange x;
    private final KvHold hold;
    private final Runnable then;
    private final long startedAt;

    private KvHoldWait(Exchange x, KvHold hold, Runnable then) {
        this.x = x;
        this.hold = hold;
        this.then = then;
        this.startedAt = System.nanoTime();
    }

    /** Holds {@code x} until {@code hold} is over, then runs {@code then} on its loop. Called on that loop. */
    static void start(Exchange x, KvHold hold, Runnable then) {
        new KvHoldWait(x, hold, then).schedule();
    }

    private void schedule() {
        x.ctx().executor().schedule(() -> x.resumeHere(this::check), POLL_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void check() {
        if (x.isDone()) {
            return;
        }
        long now = System.nanoTime();
        if (!hold.over(now)) {
            schedule();
            return;
        }
        x.record().kvHoldNanos(now - startedAt);
        then.run();
    }
}
