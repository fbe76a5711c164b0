package io.cachegate.config;

import java.util.OptionalLong;

/**
 * A tenant's limits ({@code tenants[].limits}); each one left out is unlimited.
 *
 * @param requestsPerSecond the refill rate of its request bucket
 * @param burst the request bucket's capacity; {@code requestsPerSecond} when left out
 * @param tokensPerMinute the capacity and per-minute refill of its token bucket (prompt plus completion)
 * @param maxConcurrent its requests in flight at once on one gateway
 */
public record TenantLimits(OptionalLong requestsPerSecond, OptionalLong burst, OptionalLong tokensPerMinute,
                           OptionalLong maxConcurrent) {

    public static final TenantLimits NONE = new TenantLimits(OptionalLong.empty(), OptionalLong.empty(),
            OptionalLong.empty(), OptionalLong.empty());

    /** The request bucket's capacity, or empty when requests are unlimited. */
    public OptionalLong requestCapacity() {
        return requestsPerSecond.isEmpty() ? OptionalLong.empty()
                : OptionalLong.of(burst.orElse(requestsPerSecond.getAsLong()));
    }

    /** Whether any limit is set. */
    public boolean limited() {
        return requestsPerSecond.isPresent() || tokensPerMinute.isPresent() || maxConcurrent.isPresent();
    }
}
