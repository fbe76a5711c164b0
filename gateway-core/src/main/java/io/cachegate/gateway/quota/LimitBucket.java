package io.cachegate.gateway.quota;

import io.github.bucket4j.ConsumptionProbe;
import java.util.concurrent.CompletableFuture;

/** One token bucket of one tenant, in this gateway or in Redis; never blocks the caller. */
interface LimitBucket {

    /** Takes {@code tokens} when they are there; the probe tells what is left and when to come back. */
    CompletableFuture<ConsumptionProbe> tryConsume(long tokens);

    /**
     * Corrects an earlier take once the real count is known: a positive {@code tokens} is taken even past the
     * limit (the answer is already given), a negative one is given back.
     */
    void adjust(long tokens);

    /** The bucket's size: what {@code x-ratelimit-limit-*} shows. */
    long capacity();
}
