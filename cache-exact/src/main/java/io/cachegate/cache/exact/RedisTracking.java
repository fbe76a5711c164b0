package io.cachegate.cache.exact;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.TrackingArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.push.PushListener;
import io.lettuce.core.api.push.PushMessage;
import io.lettuce.core.codec.StringCodec;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hears from Redis itself every change to an entry key, whoever made it, and drops the L1's copy: Redis's
 * server-assisted client-side caching in broadcasting mode ({@code CLIENT TRACKING ON BCAST PREFIX cg:v1:{}) on a
 * RESP3 connection of its own. The gateways' own invalidations ({@link L1Invalidations}) cover what goes through a
 * gateway; this covers the rest: an operator's {@code DEL} or {@code FLUSHDB}, another writer, eviction under
 * {@code maxmemory}, an expiry. Tracking belongs to the connection, so after every reconnect it is armed again, and
 * until then the L1 is emptied and bypassed. A server that refuses the command (Redis before 6, a proxy, an ACL
 * without {@code CLIENT}) and a Cluster (tracking is per node there) leave the L1 to the gateways' invalidations,
 * as before this class, and say so once in the log.
 */
final class RedisTracking implements AutoCloseable {

    /** Where the tracking stands; the L1 may be used in {@link #LIVE} and {@link #UNSUPPORTED}. */
    enum State { ARMING, LIVE, UNSUPPORTED, CLOSED }

    private static final Logger LOG = LoggerFactory.getLogger(RedisTracking.class);
    private static final long MAX_BACKOFF_MILLIS = 1000;

    private final RedisCacheStore l2;
    private final RateLimitedLog warnings;
    private volatile TieredCacheStore owner;
    private volatile StatefulRedisConnection<String, byte[]> connection;
    private volatile State state = State.ARMING;
    // Moves on every loss of the connection (on its I/O thread): an arming that completes after a later loss must
    // not mark it live.
    private volatile long generation;

    RedisTracking(RedisCacheStore l2) {
        this.l2 = l2;
        this.warnings = new RateLimitedLog(LOG, l2.warnInterval());
    }

    /** Connects and arms in the background (retried until it succeeds or Redis refuses); {@code owner}'s L1 is told. */
    void start(TieredCacheStore owner) {
        this.owner = owner;
        connectLoop(0);
    }

    State state() {
        return state;
    }

    /** True when the L1 may serve: tracking is armed, or this Redis cannot track (the gateways' invalidations rule). */
    boolean usable() {
        State now = state;
        return now == State.LIVE || now == State.UNSUPPORTED;
    }

    private void connectLoop(int attempt) {
        if (state == State.CLOSED) {
            return;
        }
        if (!l2.connected()) {
            later(() -> connectLoop(attempt + 1), attempt);
            return;
        }
        Optional<CompletableFuture<StatefulRedisConnection<String, byte[]>>> connecting = l2.connector().connectTracking();
        if (connecting.isEmpty()) {
            unsupported("a Redis Cluster tracks per node");
            return;
        }
        connecting.get().whenComplete((opened, error) -> {
            if (error != null) {
                warnings.warn("Redis tracking of " + l2.target() + " not connected, the L1 is bypassed: " + error);
                later(() -> connectLoop(attempt + 1), attempt);
                return;
            }
            if (state == State.CLOSED) {
                opened.closeAsync();
                return;
            }
            connection = opened;
            opened.addListener((PushListener) this::pushed);
            opened.addListener(new ConnectionState());
            arm(0, generation);
        });
    }

    /** Turns tracking on for this connection (again after a reconnect: the server forgot it with the old one). */
    private void arm(int attempt, long armedGeneration) {
        StatefulRedisConnection<String, byte[]> open = connection;
        if (state == State.CLOSED || open == null || armedGeneration != generation) {
            return;
        }
        open.async().clientTracking(TrackingArgs.Builder.enabled().bcast().prefixes(RedisKeys.ENTRY_PREFIX))
                .whenComplete((ok, error) -> {
                    if (armedGeneration != generation || state == State.CLOSED) {
                        return; // lost meanwhile: the loss arms again
                    }
                    if (error instanceof RedisCommandExecutionException refused) {
                        unsupported(refused.getMessage());
                    } else if (error != null) {
                        later(() -> arm(attempt + 1, armedGeneration), attempt);
                    } else {
                        clearL1(); // a change made before tracking was on is unknown
                        if (state != State.LIVE) {
                            LOG.info("Redis tracking of {} armed: the L1 follows every change to an entry", l2.target());
                        }
                        state = State.LIVE;
                    }
                });
    }

    /** One push from Redis: the keys that changed, or null for a flush (every key). */
    private void pushed(PushMessage message) {
        if (!"invalidate".equals(message.getType())) {
            return;
        }
        List<Object> content = message.getContent(StringCodec.UTF8::decodeKey);
        TieredCacheStore l1 = owner;
        if (l1 == null || content.size() < 2) {
            return;
        }
        if (!(content.get(1) instanceof List<?> keys)) {
            clearL1(); // FLUSHALL, FLUSHDB, or a message we cannot read: nothing the L1 holds is known to be current
            return;
        }
        for (Object key : keys) {
            // An entry's L1 key always has the one spelling CacheKey.redisKey() gives: anything else is not held.
            CacheKey.fromRedisKey(String.valueOf(key)).ifPresent(l1::invalidate);
        }
    }

    private void lost() {
        generation++;
        if (state == State.LIVE) {
            warnings.warn("Redis tracking of " + l2.target() + " disconnected: the L1 is emptied and bypassed until"
                    + " it is armed again");
            state = State.ARMING;
        }
        clearL1();
        if (state == State.ARMING) {
            long armedGeneration = generation;
            later(() -> arm(0, armedGeneration), 0);
        }
    }

    private void unsupported(String why) {
        if (state != State.CLOSED) {
            state = State.UNSUPPORTED;
            LOG.info("Redis tracking of {} not available ({}): the L1 follows only the gateways' own invalidations",
                    l2.target(), why);
        }
    }

    private void clearL1() {
        TieredCacheStore l1 = owner;
        if (l1 != null) {
            l1.clearL1();
        }
    }

    private void later(Runnable task, int attempt) {
        if (state != State.CLOSED) {
            long delay = Math.min(MAX_BACKOFF_MILLIS, 25L << Math.min(attempt, 10));
            l2.resources().eventExecutorGroup().schedule(task, delay, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Stops listening. The connection is left to the store's client, whose bounded shutdown ({@link RedisShutdown})
     * closes it next: closing it here as well only made Lettuce log "Connection is already closed".
     */
    @Override
    public void close() {
        state = State.CLOSED;
    }

    private final class ConnectionState implements RedisConnectionStateListener {
        @Override
        public void onRedisDisconnected(RedisChannelHandler<?, ?> channel) {
            lost();
        }
    }
}
