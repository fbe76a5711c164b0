package io.cachegate.admission;

import io.cachegate.config.AdmissionPolicy;
import io.cachegate.config.OverloadPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Everything one {@link AdmissionController} needs; immutable, so a policy reload builds a new
 * controller instead of mutating a live one.
 *
 * @param classes the traffic classes; equal priorities are ordered as listed
 * @param initialDrainRate the prior drain rate in tokens per second, used until a first measurement
 * @param drainWindow busy time a drain-rate sample covers at least
 * @param drainAlpha weight of a new sample in the drain-rate EWMA, in (0, 1]; {@code drainWindow / drainAlpha}
 *                   is also the time constant of the per-class arrival rates
 * @param maxRetryAfter ceiling for every Retry-After, at least 1 s
 * @param capacityRequests the pool's total concurrent-request capacity (summed over replicas), at least 1, which
 *                         each class's {@link ClassSettings#maxInflightShare()} is a share of;
 *                         {@link #UNKNOWN_CAPACITY} means unknown, and then no class is capped
 * @param fairShare whether a class's waiting requests are served in fair order between tenants
 *                  ({@link TenantQueues}) rather than first come, first served
 * @param shedOnPrior whether an arrival is turned away ({@link RejectReason#WAIT_TOO_LONG}) for a wait estimated from
 *                    {@code initialDrainRate} before a rate is measured: only when the prior was configured
 */
public record AdmissionSettings(List<ClassSettings> classes, OverloadPolicy overload, double initialDrainRate,
                                Duration drainWindow, double drainAlpha, Duration maxRetryAfter,
                                int capacityRequests, boolean fairShare, boolean shedOnPrior) {

    /** The policy's default ({@code admission.initial_drain_rate}). */
    public static final double DEFAULT_INITIAL_DRAIN_RATE = AdmissionPolicy.defaults().initialDrainRate();
    public static final Duration DEFAULT_DRAIN_WINDOW = Duration.ofSeconds(1);
    public static final double DEFAULT_DRAIN_ALPHA = 0.3;
    /** The policy's default ({@code admission.max_retry_after}). */
    public static final Duration DEFAULT_MAX_RETRY_AFTER = AdmissionPolicy.defaults().maxRetryAfter();
    /** The default {@code capacityRequests}: unknown, so in-flight caps never bind. */
    public static final int UNKNOWN_CAPACITY = Integer.MAX_VALUE;

    public AdmissionSettings {
        classes = List.copyOf(classes);
        Objects.requireNonNull(overload, "overload");
        Objects.requireNonNull(drainWindow, "drainWindow");
        Objects.requireNonNull(maxRetryAfter, "maxRetryAfter");
        List<String> problems = new ArrayList<>();
        if (classes.isEmpty()) {
            problems.add("classes must not be empty");
        }
        Set<String> names = new HashSet<>();
        double shares = 0;
        for (ClassSettings c : classes) {
            if (!names.add(c.name())) {
                problems.add("classes: duplicate name " + c.name());
            }
            shares += c.share();
        }
        if (shares >= 1) {
            problems.add("classes: the shares must add up to less than 1, were " + shares);
        }
        if (!(initialDrainRate > 0) || Double.isInfinite(initialDrainRate)) {
            problems.add("initialDrainRate must be a positive number, was " + initialDrainRate);
        }
        if (drainWindow.isNegative() || drainWindow.isZero()) {
            problems.add("drainWindow must be positive, was " + drainWindow);
        }
        if (!(drainAlpha > 0 && drainAlpha <= 1)) {
            problems.add("drainAlpha must be in (0, 1], was " + drainAlpha);
        }
        if (maxRetryAfter.compareTo(Duration.ofSeconds(1)) < 0) {
            problems.add("maxRetryAfter must be at least 1s, was " + maxRetryAfter);
        }
        if (capacityRequests < 1) {
            problems.add("capacityRequests must be at least 1, was " + capacityRequests);
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("admission: " + String.join("; ", problems));
        }
    }

    /** Shedding on the prior: the {@code initialDrainRate} given is trusted. */
    public AdmissionSettings(List<ClassSettings> classes, OverloadPolicy overload, double initialDrainRate,
                             Duration drainWindow, double drainAlpha, Duration maxRetryAfter, int capacityRequests,
                             boolean fairShare) {
        this(classes, overload, initialDrainRate, drainWindow, drainAlpha, maxRetryAfter, capacityRequests, fairShare,
                true);
    }

    /** With an unknown capacity, so no class is capped. */
    public AdmissionSettings(List<ClassSettings> classes, OverloadPolicy overload, double initialDrainRate,
                             Duration drainWindow, double drainAlpha, Duration maxRetryAfter) {
        this(classes, overload, initialDrainRate, drainWindow, drainAlpha, maxRetryAfter, UNKNOWN_CAPACITY, true);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Defaults: {@link OverloadPolicy#defaults()}, 1000 tokens/s prior, 1 s window, alpha 0.3, Retry-After at
     * most 60 s, capacity unknown, fair shares between tenants, the prior trusted for shedding.
     */
    public static final class Builder {
        private final List<ClassSettings> classes = new ArrayList<>();
        private OverloadPolicy overload = OverloadPolicy.defaults();
        private double initialDrainRate = DEFAULT_INITIAL_DRAIN_RATE;
        private Duration drainWindow = DEFAULT_DRAIN_WINDOW;
        private double drainAlpha = DEFAULT_DRAIN_ALPHA;
        private Duration maxRetryAfter = DEFAULT_MAX_RETRY_AFTER;
        private int capacityRequests = UNKNOWN_CAPACITY;
        private boolean fairShare = true;
        private boolean shedOnPrior = true;

        private Builder() {
        }

        public Builder addClass(ClassSettings settings) {
            classes.add(Objects.requireNonNull(settings, "settings"));
            return this;
        }

        public Builder overload(OverloadPolicy overload) {
            this.overload = overload;
            return this;
        }

        public Builder initialDrainRate(double tokensPerSecond) {
            this.initialDrainRate = tokensPerSecond;
            return this;
        }

        public Builder drainWindow(Duration drainWindow) {
            this.drainWindow = drainWindow;
            return this;
        }

        public Builder drainAlpha(double drainAlpha) {
            this.drainAlpha = drainAlpha;
            return this;
        }

        public Builder maxRetryAfter(Duration maxRetryAfter) {
            this.maxRetryAfter = maxRetryAfter;
            return this;
        }

        public Builder capacityRequests(int capacityRequests) {
            this.capacityRequests = capacityRequests;
            return this;
        }

        public Builder fairShare(boolean fairShare) {
            this.fairShare = fairShare;
            return this;
        }

        /** False: until a drain rate is measured, no arrival is turned away for its estimated wait. */
        public Builder shedOnPrior(boolean shedOnPrior) {
            this.shedOnPrior = shedOnPrior;
            return this;
        }

        public AdmissionSettings build() {
            return new AdmissionSettings(classes, overload, initialDrainRate, drainWindow, drainAlpha, maxRetryAfter,
                    capacityRequests, fairShare, shedOnPrior);
        }
    }
}
