package io.cachegate.admission;

import io.cachegate.config.TrafficClass;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One traffic class as admission sees it. A lower {@code priority} number is served first.
 *
 * @param maxQueueTime longest a request may wait; also the limit for the estimated wait on arrival
 * @param share fraction of dispatches guaranteed while it waits behind higher classes, in [0, 1), and so
 *              the floor of its drain-rate share in the wait estimate; 0 means strict priority (see
 *              {@link AdmissionController} for the rules)
 * @param mayDegrade under overload, its requests are admitted with {@code degrade=true} (fallback model)
 * @param maxQueueRequests queue bound in requests, at least 1
 * @param maxQueueTokens queue bound in tokens; a request alone in the queue may exceed it
 * @param pausable batch-like: new requests are rejected and queued ones held while overloaded
 * @param maxInflightShare most of the pool's {@link AdmissionSettings#capacityRequests() capacity} this class may
 *                         hold in flight, in (0, 1], so that slots stay free for higher classes; 1 means no cap
 */
public record ClassSettings(String name, int priority, Duration maxQueueTime, double share, boolean mayDegrade,
                            int maxQueueRequests, long maxQueueTokens, boolean pausable, double maxInflightShare) {

    // The policy's defaults for a class (config's TrafficClass): max_queue_time, max_queue_depth,
    // max_queue_tokens, max_inflight_share.
    public static final Duration DEFAULT_MAX_QUEUE_TIME = TrafficClass.DEFAULT_MAX_QUEUE_TIME;
    public static final int DEFAULT_MAX_QUEUE_REQUESTS = TrafficClass.DEFAULT_MAX_QUEUE_DEPTH;
    public static final long DEFAULT_MAX_QUEUE_TOKENS = TrafficClass.DEFAULT_MAX_QUEUE_TOKENS;
    public static final double DEFAULT_MAX_INFLIGHT_SHARE = TrafficClass.interactive().maxInflightShare();

    public ClassSettings {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(maxQueueTime, "maxQueueTime");
        List<String> problems = new ArrayList<>();
        if (name.isBlank()) {
            problems.add("name must not be blank");
        }
        if (priority < 0) {
            problems.add("priority must not be negative, was " + priority);
        }
        if (maxQueueTime.isNegative()) {
            problems.add("maxQueueTime must not be negative, was " + maxQueueTime);
        }
        if (!(share >= 0 && share < 1)) {
            problems.add("share must be in [0, 1), was " + share);
        }
        if (maxQueueRequests < 1) {
            problems.add("maxQueueRequests must be at least 1, was " + maxQueueRequests);
        }
        if (maxQueueTokens < 1) {
            problems.add("maxQueueTokens must be at least 1, was " + maxQueueTokens);
        }
        if (!(maxInflightShare > 0 && maxInflightShare <= 1)) {
            problems.add("maxInflightShare must be in (0, 1], was " + maxInflightShare);
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("class " + name + ": " + String.join("; ", problems));
        }
    }

    /** Without an in-flight cap ({@code maxInflightShare} 1). */
    public ClassSettings(String name, int priority, Duration maxQueueTime, double share, boolean mayDegrade,
                         int maxQueueRequests, long maxQueueTokens, boolean pausable) {
        this(name, priority, maxQueueTime, share, mayDegrade, maxQueueRequests, maxQueueTokens, pausable,
                DEFAULT_MAX_INFLIGHT_SHARE);
    }

    public static Builder builder(String name) {
        return new Builder(name);
    }

    /**
     * Defaults: priority 0, 2 s queue time, no share, no degrade, 1000 requests, 1,000,000 tokens, not pausable,
     * no in-flight cap.
     */
    public static final class Builder {
        private final String name;
        private int priority;
        private Duration maxQueueTime = DEFAULT_MAX_QUEUE_TIME;
        private double share;
        private boolean mayDegrade;
        private int maxQueueRequests = DEFAULT_MAX_QUEUE_REQUESTS;
        private long maxQueueTokens = DEFAULT_MAX_QUEUE_TOKENS;
        private boolean pausable;
        private double maxInflightShare = DEFAULT_MAX_INFLIGHT_SHARE;

        private Builder(String name) {
            this.name = Objects.requireNonNull(name, "name");
        }

        public Builder priority(int priority) {
            this.priority = priority;
            return this;
        }

        public Builder maxQueueTime(Duration maxQueueTime) {
            this.maxQueueTime = maxQueueTime;
            return this;
        }

        public Builder share(double share) {
            this.share = share;
            return this;
        }

        public Builder mayDegrade(boolean mayDegrade) {
            this.mayDegrade = mayDegrade;
            return this;
        }

        public Builder maxQueueRequests(int maxQueueRequests) {
            this.maxQueueRequests = maxQueueRequests;
            return this;
        }

        public Builder maxQueueTokens(long maxQueueTokens) {
            this.maxQueueTokens = maxQueueTokens;
            return this;
        }

        public Builder pausable(boolean pausable) {
            this.pausable = pausable;
            return this;
        }

        public Builder maxInflightShare(double maxInflightShare) {
            this.maxInflightShare = maxInflightShare;
            return this;
        }

        public ClassSettings build() {
            return new ClassSettings(name, priority, maxQueueTime, share, mayDegrade, maxQueueRequests,
                    maxQueueTokens, pausable, maxInflightShare);
        }
    }
}
