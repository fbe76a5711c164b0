package io.cachegate.gateway.quota;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.TokensInheritanceStrategy;
import java.util.concurrent.CompletableFuture;

/** A bucket in this gateway's memory: Bucket4j's lock-free local bucket, answered at once. */
final class LocalBucket implements LimitBucket {

    private final Bucket bucket;
    private volatile long capacity;

    LocalBucket(BucketShape shape, TimeMeter clock) {
        this.bucket = Bucket.builder().addLimit(shape.bandwidth()).withCustomTimePrecision(clock).build();
        this.capacity = shape.capacity();
    }

    /** New limits keep the tokens left (capped at the new size): a reload never refills a bucket. */
    void reshape(BucketShape shape) {
        bucket.replaceConfiguration(BucketConfiguration.builder().addLimit(shape.bandwidth()).build(),
                TokensInheritanceStrategy.AS_IS);
        capacity = shape.capacity();
    }

    ConsumptionProbe consume(long tokens) {
        return bucket.tryConsumeAndReturnRemaining(tokens);
    }

    @Override
    public CompletableFuture<ConsumptionProbe> tryConsume(long tokens) {
        return CompletableFuture.completedFuture(consume(tokens));
    }

    @Override
    public void adjust(long tokens) {
        if (tokens > 0) {
            bucket.consumeIgnoringRateLimits(tokens);
        } else if (tokens < 0) {
            bucket.addTokens(-tokens);
        }
    }

    @Override
    public long capacity() {
        return capacity;
    }
}
