package io.cachegate.admission;

import java.time.Duration;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * Estimates how long queued work takes to drain, for early rejection and Retry-After: the tokens queued ahead of a
 * class, the rate the classes before it leave to it, and the Retry-After a rejection quotes (whole seconds between 1
 * and {@code maxRetryAfter}). Confined to the {@link AdmissionController}'s lock, like the queues it reads.
 *
 * <p><b>Available rate.</b> A class only gets what the classes before it leave over, so its rate is
 * {@code max(drain × share, drain − min(drain, A))}, at least 1 token/s, where {@code A} is the recent
 * token arrival rate of the classes before it (an {@link ArrivalRate} of admitted and queued tokens, time
 * constant {@code drainWindow / drainAlpha}, the drain rate's own memory). The top class gets the whole
 * drain rate. Dividing by the whole drain rate instead queued batch requests behind steady interactive
 * traffic that then waited their full max queue time for a 503, where the client wanted an early 429.
 * A capped class gets at most the part of the drain rate its cap allows, {@code drain × cap / capacityRequests}
 * (its {@code maxInflightShare}, rounded down to whole requests as the cap is).
 */
final class WaitEstimate {

    /** In dispatch order, as the controller holds them. */
    private final List<ClassQueue> queues;
    private final DrainRate drain;
    private final IntSupplier capacity;
    private final long maxRetryAfterSeconds;
    private final long exitAfterSeconds;

    /**
     * @param capacity the pool's request capacity now, at least 1
     * @param exitAfter how long overload lasts at least once entered: a paused class is told to wait that long
     */
    WaitEstimate(List<ClassQueue> queues, DrainRate drain, IntSupplier capacity, Duration maxRetryAfter,
                 Duration exitAfter) {
        this.queues = queues;
        this.drain = drain;
        this.capacity = capacity;
        this.maxRetryAfterSeconds = maxRetryAfter.toSeconds();
        this.exitAfterSeconds = ceilSeconds(Nanos.of(exitAfter));
    }

    /** Tokens queued in this class and every class dispatched before it. */
    long tokensAhead(ClassQueue q) {
        long sum = 0;
        for (ClassQueue other : queues) {
            if (other.rank > q.rank) {
                break;
            }
            sum += other.tokens();
        }
        return sum;
    }

    /**
     * Tokens queued ahead of a new request of {@code cost} tokens in {@code lane} of class {@code q}: every class
     * dispatched before it, and of its own class what comes before it in fair order ({@link TenantQueues}).
     */
    long tokensAhead(ClassQueue q, String lane, long cost, double weight) {
        long sum = 0;
        for (ClassQueue other : queues) {
            if (other.rank >= q.rank) {
                break;
            }
            sum += other.tokens();
        }
        return sum + q.tokensAhead(lane, cost, weight);
    }

    /** Tokens per second left to this class by the classes dispatched before it; see the class javadoc. */
    double availableRate(ClassQueue q, long now) {
        double total = drain.rate();
        double before = 0;
        for (ClassQueue other : queues) {
            if (other.rank >= q.rank) {
                break;
            }
            before += other.arrivals.rate(now);
        }
        double left = total - Math.min(total, before);
        double available = Math.max(total * q.settings.share(), left);
        return Math.max(DrainRate.MIN_RATE, Math.min(available, total * q.inflightFraction(capacity.getAsInt())));
    }

    /** The time to drain {@code tokens} at {@code rate}, as a Retry-After. */
    Duration retryAfter(long tokens, double rate) {
        return clamped(drainSeconds(tokens, rate));
    }

    /** For a paused class: until overload may end, or longer while the classes that keep running drain. */
    Duration retryAfterPaused() {
        return clamped(Math.max(exitAfterSeconds, drainSeconds(pendingTokens(), drain.rate())));
    }

    /** Tokens queued in the classes that overload does not pause. */
    private long pendingTokens() {
        long sum = 0;
        for (ClassQueue q : queues) {
            if (!q.settings.pausable()) {
                sum += q.tokens();
            }
        }
        return sum;
    }

    private Duration clamped(long seconds) {
        return Duration.ofSeconds(Math.min(maxRetryAfterSeconds, Math.max(1, seconds)));
    }

    private static long drainSeconds(long tokens, double rate) {
        return (long) Math.ceil(tokens / rate);
    }

    private static long ceilSeconds(long nanos) {
        return nanos / 1_000_000_000L + (nanos % 1_000_000_000L == 0 ? 0 : 1);
    }
}
