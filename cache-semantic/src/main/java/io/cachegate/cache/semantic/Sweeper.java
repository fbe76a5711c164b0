package io.cachegate.cache.semantic;

import io.cachegate.config.Ticker;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes expired entries from a {@link VectorIndex} on a fixed schedule, reading the wall clock of an injectable
 * {@link Ticker}. Searches already ignore expired entries; sweeping only reclaims their space.
 */
public final class Sweeper implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Sweeper.class);

    private final VectorIndex index;
    private final Ticker ticker;
    private final ScheduledExecutorService scheduler;
    // A slow sweep is never overlapped by the next one.
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicLong swept = new AtomicLong();

    private Sweeper(VectorIndex index, Ticker ticker) {
        this.index = index;
        this.ticker = ticker;
        this.scheduler = new ScheduledThreadPoolExecutor(1, IndexThreads.daemon("cachegate-index-sweeper"));
    }

    /** Sweeps {@code index} every {@code interval}, the first time one interval from now. */
    public static Sweeper start(VectorIndex index, Ticker ticker, Duration interval) {
        if (interval == null || interval.isZero() || interval.isNegative()) {
            throw new IllegalArgumentException("interval must be positive, was " + interval);
        }
        Sweeper sweeper = new Sweeper(index, ticker);
        long millis = interval.toMillis();
        sweeper.scheduler.scheduleWithFixedDelay(sweeper::runOnce, millis, millis, TimeUnit.MILLISECONDS);
        return sweeper;
    }

    /** One sweep at the ticker's current wall time; completes with how many entries it removed (0 if one was running). */
    public CompletableFuture<Long> runOnce() {
        if (!running.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(0L);
        }
        CompletableFuture<Long> sweep;
        try {
            sweep = index.sweepExpired(ticker.wallMillis());
        } catch (RuntimeException e) {
            sweep = CompletableFuture.failedFuture(e);
        }
        return sweep.whenComplete((count, failure) -> {
            running.set(false);
            if (failure != null) {
                LOG.warn("Semantic index sweep failed: {}", failure.toString());
            } else {
                swept.addAndGet(count);
            }
        });
    }

    /** Entries removed by this sweeper so far. */
    public long swept() {
        return swept.get();
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
