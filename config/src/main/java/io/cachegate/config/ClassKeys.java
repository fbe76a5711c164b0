package io.cachegate.config;

import java.math.BigDecimal;
import java.math.MathContext;
import java.time.Duration;

/** The keys of each class under {@code classes}; {@link ClassesReader} reads them. */
final class ClassKeys {

    static final Key<Integer> PRIORITY = Key.integer("priority", 0, 0, 1000, "lower goes first");
    static final Key<Duration> MAX_QUEUE_TIME = Key.duration("max_queue_time", Duration.ofSeconds(2),
            "waited longer: 429 with Retry-After");
    static final Key<Integer> MAX_QUEUE_DEPTH = Key.integer("max_queue_depth", 1000, 1, 10_000_000,
            "queue full (in requests): 429 at once");
    static final Key<Long> MAX_QUEUE_TOKENS = Key.longInteger("max_queue_tokens", 1_000_000, 1, 1_000_000_000_000L,
            "queue full (in tokens: prompt plus max_tokens): 429 at once");
    static final Key<Double> SHARE = Key.decimal("share", 0, "[0, 1)", v -> v >= 0 && v < 1,
            v -> format(v) + " is outside [0, 1); it is the fraction of dispatches the class is guaranteed"
                    + " (0: strict priority)",
            "fraction of dispatches guaranteed while higher classes wait too; all classes' add up to less than 1");
    static final Key<Boolean> MAY_DEGRADE = Key.bool("may_degrade", false,
            "under overload, may go to the route's fallback chain");
    static final Key<Boolean> PAUSABLE = Key.bool("pausable", false,
            "batch-like: paused under overload, new requests refused");
    static final Key<Double> MAX_INFLIGHT_SHARE = Key.decimal("max_inflight_share", 1, "(0, 1]", v -> v > 0 && v <= 1,
            v -> format(v) + " is outside (0, 1]; it is the share of the backend's request capacity this class may"
                    + " hold at once",
            "share of a backend's request capacity (replicas x max_concurrency, or the replicas' current"
                    + " adaptive limits summed) this class may hold at once");

    static final Section SECTION = Section.named("classes",
            "admission queues; they queue requests only with admission.enabled, else they just name a route's class",
            PRIORITY, MAX_QUEUE_TIME, MAX_QUEUE_DEPTH, MAX_QUEUE_TOKENS, SHARE, MAY_DEGRADE, PAUSABLE,
            MAX_INFLIGHT_SHARE).live();

    private ClassKeys() {
    }

    /** Six significant digits: 0.1 + 0.2 shows as 0.3, not 0.30000000000000004. */
    static String format(double value) {
        return new BigDecimal(value).round(new MathContext(6)).stripTrailingZeros().toPlainString();
    }
}
