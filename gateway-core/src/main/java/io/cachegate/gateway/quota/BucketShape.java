package io.cachegate.gateway.quota;

import io.github.bucket4j.Bandwidth;
import java.time.Duration;

/**
 * A bucket's size and refill: {@code capacity} tokens, refilled greedily (a little at a time, not in steps) at
 * {@code refill} per {@code period}.
 */
record BucketShape(long capacity, long refill, Duration period) {

    /** Requests: a bucket of {@code burst}, refilled at {@code perSecond}. */
    static BucketShape requests(long perSecond, long burst) {
        return new BucketShape(burst, perSecond, Duration.ofSeconds(1));
    }

    /** Tokens: a bucket of {@code perMinute}, refilled over a minute. */
    static BucketShape tokens(long perMinute) {
        return new BucketShape(perMinute, perMinute, Duration.ofMinutes(1));
    }

    Bandwidth bandwidth() {
        return Bandwidth.builder().capacity(capacity).refillGreedy(refill, period).build();
    }

    /** Part of a shared bucket's Redis key: gateways on different limits never share (nor fight over) one. */
    String id() {
        return capacity + "-" + refill + "-" + period.toSeconds() + "s";
    }
}
