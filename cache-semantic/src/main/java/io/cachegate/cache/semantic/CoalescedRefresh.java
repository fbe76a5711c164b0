package io.cachegate.cache.semantic;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The index's searcher refreshes, coalesced: one future and one scheduled task serve every request until the
 * refresh runs, a more urgent request moves the task earlier, and refreshes run at most once per interval, so a
 * burst of writes costs one reopen. Thread-safe.
 */
final class CoalescedRefresh {

    /** The refresh itself: reopens the searcher. */
    interface Action {
        void run() throws IOException;
    }

    private final ScheduledExecutorService scheduler;
    private final long intervalNanos;
    private final Action action;
    private final Object lock = new Object();
    private CompletableFuture<Void> next;        // guarded by lock
    private ScheduledFuture<?> scheduled;        // guarded by lock
    private long scheduledNanos;                 // guarded by lock
    private long lastNanos;                      // guarded by lock

    /**
     * @param scheduler runs the refreshes; its owner shuts it down, then calls {@link #runNow()} to complete the
     *                  futures still waiting
     */
    CoalescedRefresh(ScheduledExecutorService scheduler, long intervalNanos, Action action) {
        this.scheduler = scheduler;
        this.intervalNanos = intervalNanos;
        this.action = action;
    }

    /** A future completed by the next refresh, which runs within {@code delayNanos} but at most once per interval. */
    CompletableFuture<Void> within(long delayNanos) {
        synchronized (lock) {
            if (next == null) {
                next = new CompletableFuture<>();
            }
            long now = System.nanoTime();
            long due = Math.max(now + delayNanos, lastNanos + intervalNanos);
            if (scheduled == null || due - scheduledNanos < 0) {
                if (scheduled != null) {
                    scheduled.cancel(false);  // one that already started finds nothing left to do, or refreshes early
                }
                try {
                    scheduled = scheduler.schedule(this::runNow, due - now, TimeUnit.NANOSECONDS);
                    scheduledNanos = due;
                } catch (RejectedExecutionException e) {
                    CompletableFuture<Void> failed = next;
                    next = null;
                    failed.completeExceptionally(new IndexUnavailableException("index closed", e));
                    return failed;
                }
            }
            return next;
        }
    }

    /** Refreshes now if anyone waits for a refresh, and completes their future. */
    void runNow() {
        CompletableFuture<Void> done;
        synchronized (lock) {
            done = next;
            if (done == null) {
                return;
            }
            next = null;
            scheduled = null;
            lastNanos = System.nanoTime();
        }
        try {
            action.run();
            done.complete(null);
        } catch (IOException | RuntimeException e) {
            done.completeExceptionally(e);
        }
    }
}
