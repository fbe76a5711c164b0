package io.cachegate.config;

import java.time.Duration;
import java.util.Objects;

/**
 * An admission queue: requests of a lower {@code priority} number go first; a request waiting longer
 * than {@code maxQueueTime}, or arriving at a queue {@code maxQueueDepth} requests or
 * {@code maxQueueTokens} tokens deep, is rejected with 429.
 *
 * @param maxQueueTokens queue bound in tokens (the requests' estimated costs)
 * @param share fraction of dispatches this class is guaranteed while it waits behind higher classes, in
 *     [0, 1); 0 means strict priority. The shares of all classes add up to less than 1
 * @param mayDegrade under overload, its requests may go to the route's fallback (model) instead of waiting
 * @param pausable batch-like: while overloaded, new requests are rejected and queued ones held
 * @param maxInflightShare the share of a backend's request capacity this class may hold at once, in (0, 1];
 *     below 1 keeps slots free for higher classes, so they do not wait for this class's requests to finish
 */
public record TrafficClass(String name, int priority, Duration maxQueueTime, int maxQueueDepth,
                           long maxQueueTokens, double share, boolean mayDegrade, boolean pausable,
                           double maxInflightShare) {

    public static final Duration DEFAULT_MAX_QUEUE_TIME = ClassKeys.MAX_QUEUE_TIME.fallback();
    public static final int DEFAULT_MAX_QUEUE_DEPTH = ClassKeys.MAX_QUEUE_DEPTH.fallback();
    public static final long DEFAULT_MAX_QUEUE_TOKENS = ClassKeys.MAX_QUEUE_TOKENS.fallback();

    public TrafficClass {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(maxQueueTime, "maxQueueTime");
        if (!(share >= 0 && share < 1)) {
            throw new IllegalArgumentException("share must be in [0, 1), was " + share);
        }
        if (!(maxInflightShare > 0 && maxInflightShare <= 1)) {
            throw new IllegalArgumentException("maxInflightShare must be in (0, 1], was " + maxInflightShare);
        }
    }

    /** A class with the default {@code max_inflight_share} (no cap on its share of the capacity). */
    public TrafficClass(String name, int priority, Duration maxQueueTime, int maxQueueDepth, long maxQueueTokens,
                        double share, boolean mayDegrade, boolean pausable) {
        this(name, priority, maxQueueTime, maxQueueDepth, maxQueueTokens, share, mayDegrade, pausable,
                ClassKeys.MAX_INFLIGHT_SHARE.fallback());
    }

    /** A class with the request bound only; every other key at its default (no share, no degrade, not pausable). */
    public TrafficClass(String name, int priority, Duration maxQueueTime, int maxQueueDepth) {
        this(name, priority, maxQueueTime, maxQueueDepth, DEFAULT_MAX_QUEUE_TOKENS, ClassKeys.SHARE.fallback(),
                ClassKeys.MAY_DEGRADE.fallback(), ClassKeys.PAUSABLE.fallback());
    }

    /** The single class used when the policy declares none: every key at its default (see {@code ClassKeys}). */
    public static TrafficClass interactive() {
        return new TrafficClass("interactive", ClassKeys.PRIORITY.fallback(), DEFAULT_MAX_QUEUE_TIME,
                DEFAULT_MAX_QUEUE_DEPTH);
    }
}
