package io.cachegate.routing;

import io.cachegate.config.Balance;
import io.cachegate.config.PrefixAffinitySettings;
import java.util.Objects;

/**
 * Everything a {@link ReplicaSet} is configured with. The balance and the prefix-affinity settings are
 * the policy's own records; capacity, breaker and external load are what the gateway derives from the
 * policy (see its {@code PolicyMappings}).
 *
 * @param maxConcurrency in-flight requests allowed per replica; with {@code adaptiveConcurrency}, the ceiling
 *     of the limit each replica finds
 * @param maxInflightTokens in-flight tokens (the requests' costs) allowed per replica;
 *     {@link #UNLIMITED_TOKENS} for no limit
 * @param adaptiveConcurrency when true, each replica's request limit is found from its measured time to first
 *     token ({@link ReplicaSet#recordSuccess(java.net.URI, long)}); when false it is {@code maxConcurrency}, fixed
 */
public record ReplicaSetSettings(Balance balance, int maxConcurrency, long maxInflightTokens,
                                 BreakerSettings breaker, PrefixAffinitySettings affinity,
                                 ExternalLoadSettings externalLoad, boolean adaptiveConcurrency) {

    public static final long UNLIMITED_TOKENS = Long.MAX_VALUE;
    public static final int DEFAULT_MAX_CONCURRENCY = 64;
    /**
     * The ceiling of an adaptive limit: above what one model server batches (vLLM's default is 256 sequences),
     * so the limit is what the latency says, and the in-flight shares of classes have a fixed total to divide.
     */
    public static final int ADAPTIVE_CEILING = 512;

    public ReplicaSetSettings {
        Objects.requireNonNull(balance, "balance");
        if (maxConcurrency < 1) {
            throw new IllegalArgumentException("maxConcurrency must be at least 1, was " + maxConcurrency);
        }
        if (maxInflightTokens < 1) {
            throw new IllegalArgumentException("maxInflightTokens must be at least 1, was " + maxInflightTokens);
        }
        Objects.requireNonNull(breaker, "breaker");
        Objects.requireNonNull(affinity, "affinity");
        Objects.requireNonNull(externalLoad, "externalLoad");
    }

    /** Least loaded, 64 requests and unlimited tokens per replica, default breaker, affinity and external load. */
    public static ReplicaSetSettings defaults() {
        return new ReplicaSetSettings(Balance.LEAST_LOADED, DEFAULT_MAX_CONCURRENCY, UNLIMITED_TOKENS,
                BreakerSettings.defaults(), PrefixAffinitySettings.defaults(), ExternalLoadSettings.defaults(), false);
    }

    public ReplicaSetSettings withBalance(Balance b) {
        return new ReplicaSetSettings(b, maxConcurrency, maxInflightTokens, breaker, affinity, externalLoad, adaptiveConcurrency);
    }

    /** A fixed capacity: {@code requests} and {@code tokens} in flight per replica, never adapted. */
    public ReplicaSetSettings withCapacity(int requests, long tokens) {
        return new ReplicaSetSettings(balance, requests, tokens, breaker, affinity, externalLoad, false);
    }

    /** An adaptive request limit per replica, at most {@code ceiling}, with a fixed bound of {@code tokens}. */
    public ReplicaSetSettings withAdaptiveCapacity(int ceiling, long tokens) {
        return new ReplicaSetSettings(balance, ceiling, tokens, breaker, affinity, externalLoad, true);
    }

    public ReplicaSetSettings withBreaker(BreakerSettings b) {
        return new ReplicaSetSettings(balance, maxConcurrency, maxInflightTokens, b, affinity, externalLoad, adaptiveConcurrency);
    }

    public ReplicaSetSettings withAffinity(PrefixAffinitySettings a) {
        return new ReplicaSetSettings(balance, maxConcurrency, maxInflightTokens, breaker, a, externalLoad, adaptiveConcurrency);
    }
}
