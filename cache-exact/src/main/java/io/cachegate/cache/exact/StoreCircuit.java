package io.cachegate.cache.exact;

import io.cachegate.config.StoreHealthSettings;
import io.cachegate.config.Ticker;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.lettuce.core.RedisCommandTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides from the Redis store's last operations whether it is healthy, degraded or probing, so that one timeout
 * does not read as an outage: resilience4j's count-based circuit breaker over the last {@code window} operations,
 * degraded (OPEN: operations fail fast) once {@code minCalls} are in it and enough failed or were slow; after
 * {@code openFor} it moves by itself to probing (HALF_OPEN), and {@code probes} operations decide. Each operation's
 * latency also feeds the {@link AdaptiveTimeout}, and "slow" is measured against that timeout. Every state change
 * goes to {@link StoreHealth} and one log line.
 */
final class StoreCircuit {

    private static final Logger LOG = LoggerFactory.getLogger(RedisCacheStore.class);
    // resilience4j's slow-call threshold is a fixed duration, ours a share of the adaptive timeout: each operation is
    // reported in units of the slow limit at its end, a slow one above this.
    private static final Duration SLOW = Duration.ofSeconds(1);
    /** What {@link #admit()} returns for an operation it refuses. */
    static final long REFUSED = Long.MIN_VALUE;

    private final CircuitBreaker breaker;
    private final AdaptiveTimeout timeout;
    private final double slowShare;
    private final Ticker ticker;
    private final StoreHealth health;
    private final String target;

    StoreCircuit(StoreHealthSettings settings, AdaptiveTimeout timeout, Ticker ticker, StoreHealth health,
                 String target) {
        this.timeout = timeout;
        this.slowShare = settings.slowCall();
        this.ticker = ticker;
        this.health = health;
        this.target = target;
        this.breaker = CircuitBreaker.of("redis-cache", CircuitBreakerConfig.custom()
                .slidingWindow(settings.window(), settings.minCalls(), CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .failureRateThreshold(percent(settings.failureRate()))
                .slowCallRateThreshold(percent(settings.slowCallRate()))
                .slowCallDurationThreshold(SLOW)
                .waitDurationInOpenState(settings.openFor())
                .permittedNumberOfCallsInHalfOpenState(settings.probes())
                // On resilience4j's one daemon thread: a store that gets no traffic is probed by the next operation
                // after openFor all the same, and its state reads "probing" rather than "degraded" meanwhile.
                .automaticTransitionFromOpenToHalfOpenEnabled(true)
                .clock(clockOf(ticker))
                .writableStackTraceEnabled(false)
                .build());
        breaker.getEventPublisher().onStateTransition(e -> moved(e.getStateTransition().getToState()));
    }

    /** The command timeout now (for Lettuce's timeout source). */
    long timeoutNanos() {
        return timeout.nanos();
    }

    /**
     * Admits one operation: its start time, to hand to {@link #ended}; or {@link #REFUSED} when the store is degraded,
     * or probing with every probe already out: the caller fails at once without touching Redis.
     */
    long admit() {
        return breaker.tryAcquirePermission() ? ticker.nanos() : REFUSED;
    }

    /** An admitted operation that was never sent (it failed before reaching Redis): it says nothing of Redis. */
    void abandoned() {
        breaker.releasePermission();
    }

    /** An admitted operation ended: answered when {@code error} is null, else failed (timed out, refused, lost). */
    void ended(long startedNanos, Throwable error) {
        long elapsed = Math.max(0, ticker.nanos() - startedNanos);
        if (error == null) {
            long slowLimit = Math.max(1, (long) (slowShare * timeout.nanos()));
            timeout.record(elapsed);
            breaker.onSuccess(relative(elapsed, slowLimit), TimeUnit.NANOSECONDS);
        } else {
            if (error instanceof RedisCommandTimeoutException) {
                timeout.record(elapsed); // at least this slow: lets a latency step beyond the timeout be seen
            }
            breaker.onError(elapsed, TimeUnit.NANOSECONDS, error);
        }
    }

    StoreState state() {
        return health.state();
    }

    /** Why an operation was refused, for its exception and the log. */
    String refusal() {
        return health.state() == StoreState.PROBING ? "probing, every probe already out" : "degraded";
    }

    private void moved(CircuitBreaker.State to) {
        StoreState next = switch (to) {
            case OPEN, FORCED_OPEN -> StoreState.DEGRADED;
            case HALF_OPEN -> StoreState.PROBING;
            default -> StoreState.HEALTHY;
        };
        if (!health.state(next)) {
            return;
        }
        CircuitBreaker.Metrics m = breaker.getMetrics();
        switch (next) {
            case DEGRADED -> LOG.warn("redis cache {} degraded: {}% of the last {} operations failed, {}% were slow"
                    + " (command timeout {} ms); operations fail fast (a miss) for {} ms, then probe", target,
                    rate(m.getFailureRate()), m.getNumberOfBufferedCalls(), rate(m.getSlowCallRate()),
                    TimeUnit.NANOSECONDS.toMillis(timeout.nanos()),
                    breaker.getCircuitBreakerConfig().getWaitIntervalFunctionInOpenState().apply(1));
            case PROBING -> LOG.info("redis cache {} probing: {} operations go to Redis to decide",
                    target, breaker.getCircuitBreakerConfig().getPermittedNumberOfCallsInHalfOpenState());
            case HEALTHY -> LOG.info("redis cache {} healthy again: requests use it", target);
        }
    }

    /** {@code elapsed} in units of {@link #SLOW} per {@code slowLimit}: slow exactly when above {@code SLOW}. */
    private static long relative(long elapsed, long slowLimit) {
        return (long) ((double) elapsed / slowLimit * SLOW.toNanos());
    }

    private static String rate(float percent) {
        return percent < 0 ? "?" : Integer.toString(Math.round(percent));
    }

    private static float percent(double share) {
        return (float) (share * 100);
    }

    /** resilience4j times the open state with a {@link Clock}: ours reads the (monotonic) ticker. */
    private static Clock clockOf(Ticker ticker) {
        return new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return Instant.EPOCH.plusNanos(ticker.nanos());
            }
        };
    }
}
