package io.cachegate.cache.exact;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.internal.ThreadExecutorMap;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lettuce's timer when its I/O runs on the gateway's event loops: a timeout asked for on an event loop is scheduled
 * on that loop, any other on a shared wheel. Lettuce arms one timeout per command (its command timeout) and cancels
 * it when the answer comes; with one connection per loop both happen on the loop that sends the command, so the loop's
 * own scheduler does it with no other thread: a wheel's thread would take every timeout and its cancellation over a
 * queue from another core and wake every tick (2.6% of a Redis hit's CPU in a profile on this machine, the wheel's
 * thread alone). A loop's scheduler also fires at the deadline itself, not at the wheel's next tick.
 */
final class LoopTimer implements Timer {

    private static final Logger LOG = LoggerFactory.getLogger(LoopTimer.class);

    private final Timer elsewhere;

    /** {@code elsewhere} takes the timeouts asked for off an event loop, and is stopped with this timer. */
    LoopTimer(Timer elsewhere) {
        this.elsewhere = elsewhere;
    }

    @Override
    public Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
        EventExecutor loop = ThreadExecutorMap.currentExecutor();
        if (loop == null || loop.isShuttingDown()) {
            return elsewhere.newTimeout(task, delay, unit);
        }
        LoopTimeout timeout = new LoopTimeout(this, task);
        timeout.scheduled = loop.schedule(timeout, delay, unit);
        return timeout;
    }

    /** Stops the wheel; timeouts on the loops end with their loops (their commands fail when the connection closes). */
    @Override
    public Set<Timeout> stop() {
        return elsewhere.stop();
    }

    /** One timeout on a loop's scheduler. */
    private static final class LoopTimeout implements Timeout, Runnable {

        private final Timer timer;
        private final TimerTask task;
        // Set right after scheduling, before the task can run on this loop; volatile for a cancel from another loop (a
        // command sent on a connection whose loop is not the caller's, while the slots learn their loops).
        private volatile ScheduledFuture<?> scheduled;
        // Set before the task runs, as the wheel's timeouts do: the scheduled future is done only after it returns.
        private volatile boolean expired;

        LoopTimeout(Timer timer, TimerTask task) {
            this.timer = timer;
            this.task = task;
        }

        @Override
        public void run() {
            expired = true;
            try {
                task.run(this);
            } catch (Throwable t) {
                LOG.warn("A Redis command's timeout task failed", t);
            }
        }

        @Override
        public Timer timer() {
            return timer;
        }

        @Override
        public TimerTask task() {
            return task;
        }

        @Override
        public boolean isExpired() {
            return expired;
        }

        @Override
        public boolean isCancelled() {
            return scheduled.isCancelled();
        }

        @Override
        public boolean cancel() {
            return scheduled.cancel(false);
        }
    }
}
