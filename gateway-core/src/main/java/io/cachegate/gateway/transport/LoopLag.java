package io.cachegate.gateway.transport;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.concurrent.TimeUnit;

/**
 * How late each of the gateway's event loops runs what is due: the gateway's own delay, which every latency it
 * measures on that loop includes. A task on each loop notes, every {@link #PERIOD_MILLIS} ms, how long after its
 * due time it ran; {@link #here()} gives the larger of the calling loop's last two readings. A backend's time to
 * first token less this is what the backend took: a saturated gateway reads its answers a few milliseconds late,
 * and without the correction the adaptive request limit took that for a queue in the backend and shrank, holding
 * requests back in the gateway that was the bottleneck itself.
 */
public final class LoopLag {

    /** How often each loop measures itself: often enough to follow a burst, rare enough to cost nothing. */
    static final long PERIOD_MILLIS = 10;
    private static final FastThreadLocal<long[]> READINGS = new FastThreadLocal<>();

    private LoopLag() {
    }

    /** Starts measuring every loop of {@code group}; the measurements end with the loops. */
    public static void start(EventLoopGroup group) {
        for (EventExecutor loop : group) {
            loop.execute(() -> schedule(loop, new long[2]));
        }
    }

    /** The calling loop's lateness in nanoseconds (0 on a thread that is not a measured loop). */
    public static long here() {
        long[] last = READINGS.getIfExists();
        return last == null ? 0 : Math.max(last[0], last[1]);
    }

    private static void schedule(EventExecutor loop, long[] last) {
        READINGS.set(last);
        long due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PERIOD_MILLIS);
        loop.schedule(() -> {
            last[1] = last[0];
            last[0] = Math.max(0, System.nanoTime() - due);
            if (!loop.isShuttingDown()) {
                schedule(loop, last);
            }
        }, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    }
}
