package io.cachegate.cache.exact;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the in-process L1s of every gateway on one Redis coherent through one pub/sub channel: each overwrite and
 * purge is published there once it has reached Redis, and every other gateway drops what its L1 holds of it. The
 * subscription has a connection of its own; while it is down the L1 is emptied and bypassed (an invalidation could
 * be missed), and once it is subscribed again the L1 is emptied once more (one may have been missed) and used again.
 * Classic PUBLISH reaches subscribers on every node of a Redis Cluster, and a Sentinel URI follows the master.
 * Changes made without a gateway (an operator's delete or flush, an eviction) come from Redis's own tracking
 * ({@link RedisTracking}); the L1 is used only while both are heard.
 */
final class L1Invalidations implements AutoCloseable {

    /** The channel every gateway of one Redis publishes to and listens on. */
    static final String CHANNEL = RedisKeys.PREFIX + "invalidate";

    private static final Logger LOG = LoggerFactory.getLogger(L1Invalidations.class);

    private final RedisCacheStore l2;
    private final RedisTracking tracking;
    private final String sender = UUID.randomUUID().toString();
    private final RateLimitedLog warnings;
    private volatile TieredCacheStore l1Owner;
    private volatile StatefulRedisPubSubConnection<String, byte[]> subscription;
    private volatile boolean live;
    private volatile boolean closed;

    L1Invalidations(RedisCacheStore l2) {
        this.l2 = l2;
        this.tracking = new RedisTracking(l2);
        this.warnings = new RateLimitedLog(LOG, l2.warnInterval());
    }

    /** Starts subscribing (in the background, retried until it succeeds); {@code owner}'s L1 is what it clears. */
    void start(TieredCacheStore owner) {
        this.l1Owner = owner;
        subscribeLoop(0);
        tracking.start(owner);
    }

    /** True while subscribed and tracked (or tracking is not available): the L1 may serve and keep entries. */
    boolean live() {
        return live && !closed && tracking.usable();
    }

    /** Where Redis's own tracking stands. */
    RedisTracking.State tracking() {
        return tracking.state();
    }

    /** Tells the other gateways that {@code key} was overwritten (after the write reached Redis). */
    CompletableFuture<Void> overwritten(CacheKey key) {
        return publish(sender + "\nk\n" + key.redisKey());
    }

    /** Tells the other gateways that {@code scope} was purged (after the purge reached Redis). */
    CompletableFuture<Void> purged(PurgeScope scope) {
        return publish(sender + "\np\n" + (scope.all() ? "1" : "0") + "\n" + field(scope.tenant()) + "\n"
                + field(scope.modelVersion()) + "\n" + field(scope.tag()) + "\n" + field(scope.user()));
    }

    private CompletableFuture<Void> publish(String message) {
        return l2.publish(CHANNEL, message.getBytes(StandardCharsets.UTF_8)).thenApply(receivers -> null);
    }

    /** Applies one message of another gateway to the L1; a malformed one (not ours) empties it, to be safe. */
    void received(byte[] payload) {
        TieredCacheStore owner = l1Owner;
        String[] parts = new String(payload, StandardCharsets.UTF_8).split("\n", -1);
        if (owner == null || parts.length < 3 || parts[0].equals(sender)) {
            return; // our own write or purge: our L1 is already right
        }
        if (parts[1].equals("k")) {
            Optional<CacheKey> key = CacheKey.fromRedisKey(parts[2]);
            if (key.isPresent()) {
                owner.invalidate(key.get());
                return;
            }
        } else if (parts[1].equals("p") && parts.length == 7) {
            try {
                owner.invalidate(new PurgeScope(parts[2].equals("1"), value(parts[3]), value(parts[4]), value(parts[5]),
                        value(parts[6])));
                return;
            } catch (IllegalArgumentException e) {
                // falls through: emptied below
            }
        }
        owner.clearL1();
    }

    private void subscribeLoop(int attempt) {
        if (closed) {
            return;
        }
        if (!l2.connected()) {
            // Not before the store's own connection: a cluster client subscribes only once it knows the topology.
            retryLater(attempt);
            return;
        }
        l2.connector().connectPubSub().whenComplete((connection, error) -> {
            if (error != null) {
                warnings.warn("L1 invalidations of " + l2.target() + " not subscribed, the L1 is bypassed: " + error);
                retryLater(attempt);
                return;
            }
            if (closed) {
                connection.closeAsync();
                return;
            }
            subscription = connection;
            connection.addListener(new Messages());
            connection.addListener(new ConnectionState());
            // Lettuce subscribes again by itself after every reconnect; each confirmation comes to subscribed().
            connection.async().subscribe(CHANNEL);
        });
    }

    private void retryLater(int attempt) {
        long delay = RedisConnector.connectRetryMillis(attempt);
        if (!closed) {
            l2.resources().eventExecutorGroup().schedule(() -> subscribeLoop(attempt + 1), delay, TimeUnit.MILLISECONDS);
        }
    }

    private void lost() {
        if (live) {
            warnings.warn("L1 invalidations of " + l2.target() + " disconnected: the L1 is emptied and bypassed until"
                    + " the subscription is back");
        }
        live = false;
        TieredCacheStore owner = l1Owner;
        if (owner != null) {
            owner.clearL1();
        }
    }

    private static String field(Optional<String> value) {
        return value.map(v -> "+" + URLEncoder.encode(v, StandardCharsets.UTF_8)).orElse("-");
    }

    private static Optional<String> value(String field) {
        return field.startsWith("+") ? Optional.of(URLDecoder.decode(field.substring(1), StandardCharsets.UTF_8))
                : Optional.empty();
    }

    @Override
    public void close() {
        closed = true;
        live = false;
        tracking.close();
        StatefulRedisPubSubConnection<String, byte[]> open = subscription;
        if (open != null) {
            open.closeAsync(); // the client's bounded shutdown (RedisShutdown) waits for it
        }
    }

    private final class Messages extends RedisPubSubAdapter<String, byte[]> {
        @Override
        public void message(String channel, byte[] message) {
            received(message);
        }

        @Override
        public void subscribed(String channel, long count) {
            TieredCacheStore owner = l1Owner;
            if (owner != null) {
                owner.clearL1(); // anything published while we were not subscribed is unknown
            }
            if (!live && !closed) {
                LOG.info("L1 invalidations of {} subscribed: the L1 is in use", l2.target());
            }
            live = !closed;
        }
    }

    private final class ConnectionState implements RedisConnectionStateListener {
        @Override
        public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
            lost();
        }
    }
}
