package io.cachegate.cache.exact;

import io.cachegate.config.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * Logs a warning at most once per interval and says how many were suppressed in between, so an
 * outage that fails every request writes one line every few seconds rather than one per request.
 */
public final class RateLimitedLog {

    private final Logger log;
    private final long intervalNanos;
    private final Ticker ticker;
    private final AtomicLong nextAllowed;
    private final AtomicLong suppressed = new AtomicLong();

    public RateLimitedLog(Logger log, Duration interval) {
        this(log, interval, Ticker.system());
    }

    RateLimitedLog(Logger log, Duration interval, Ticker ticker) {
        if (interval.isNegative()) {
            throw new IllegalArgumentException("interval must not be negative, was " + interval);
        }
        this.log = log;
        this.intervalNanos = interval.toNanos();
        this.ticker = ticker;
        this.nextAllowed = new AtomicLong(ticker.nanos());
    }

    /** Logs {@code message} unless a line was written within the interval; returns whether it logged. */
    public boolean warn(String message) {
        long now = ticker.nanos();
        long next = nextAllowed.get();
        if (now - next < 0 || !nextAllowed.compareAndSet(next, now + intervalNanos)) {
            suppressed.incrementAndGet();
            return false;
        }
        long skipped = suppressed.getAndSet(0);
        if (skipped > 0) {
            log.warn("{} ({} similar suppressed)", message, skipped);
        } else {
            log.warn("{}", message);
        }
        return true;
    }
}
