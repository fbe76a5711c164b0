package io.cachegate.cache.exact;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redis store's connections: one, or one per event loop when Lettuce runs on the gateway's loops (see
 * {@link CacheStores}), and which one a caller uses. Each connects in the background until its first connect
 * succeeds, then Lettuce reconnects it; the store's health follows these connections only (the client's other
 * connections, a cluster's topology refreshes and the L1 invalidations' subscription, say nothing of them): it is
 * available while any of them is up, and a caller whose own connection is down (still reconnecting after an
 * outage) is lent one that is up.
 */
final class RedisConnections {

    private static final Logger LOG = LoggerFactory.getLogger(RedisCacheStore.class);

    private final RedisConnector connector;
    private final ClientResources resources;
    private final StoreHealth health;
    private final RateLimitedLog warnings;
    private final String target;
    // A slot is null until its first connect succeeds; from then on Lettuce reconnects the same connection.
    private final AtomicReferenceArray<RedisConnector.Connected> slots;
    // The thread each slot's answers last arrived on: its channel's event loop, learned from the answers
    // themselves (so it follows a reconnect onto another loop). A caller on that thread uses that slot.
    private final AtomicReferenceArray<Thread> owners;
    // 1 while a slot's connection is up, as its state listener last heard.
    private final AtomicIntegerArray up;
    private volatile boolean closed;

    RedisConnections(RedisConnector connector, ClientResources resources, StoreHealth health, RateLimitedLog warnings,
                     String target, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("connections must be positive, was " + count);
        }
        this.connector = connector;
        this.resources = resources;
        this.health = health;
        this.warnings = warnings;
        this.target = target;
        this.slots = new AtomicReferenceArray<>(count);
        this.owners = new AtomicReferenceArray<>(count);
        this.up = new AtomicIntegerArray(count);
    }

    /** Starts connecting every slot; returns at once. */
    void open() {
        for (int slot = 0; slot < slots.length(); slot++) {
            connectLoop(slot, 0);
        }
    }

    /** The slot of the calling thread's own connection, or, for a thread that owns none, one spread by its identity. */
    int slot() {
        int n = slots.length();
        if (n == 1) {
            return 0;
        }
        Thread t = Thread.currentThread();
        for (int i = 0; i < n; i++) {
            if (owners.get(i) == t) {
                return i;
            }
        }
        return Math.floorMod(System.identityHashCode(t), n);
    }

    /**
     * The commands of {@code slot}, or of another slot that is up while this one is down or not yet connected; null
     * when none ever connected. With every connection down, the slot's own (its commands fail at once: a miss).
     */
    RedisClusterAsyncCommands<String, byte[]> commands(int slot) {
        if (closed) {
            return null;
        }
        RedisConnector.Connected c = slots.get(slot);
        if (c == null || up.get(slot) == 0) {
            for (int i = 1; i < slots.length(); i++) {
                int other = (slot + i) % slots.length();
                RedisConnector.Connected o = slots.get(other);
                if (o != null && (up.get(other) == 1 || c == null)) {
                    c = o;
                    if (up.get(other) == 1) {
                        break;
                    }
                }
            }
        }
        return c == null ? null : c.commands();
    }

    /** Called on the thread an answer on {@code slot} arrived on (-1: none to learn from): that slot's loop. */
    void answeredHere(int slot) {
        if (slot >= 0 && slots.length() > 1) {
            Thread t = Thread.currentThread();
            if (owners.get(slot) != t) {
                owners.set(slot, t);
            }
        }
    }

    /**
     * Stops handing out connections (later calls of {@link #commands} answer null) and opening new ones. The
     * connections themselves are closed by the client's bounded shutdown ({@link RedisShutdown}), which closes
     * every connection it opened: closing them here as well made Lettuce warn "already closed" for each.
     */
    void close() {
        closed = true;
    }

    private boolean anyUp() {
        for (int i = 0; i < up.length(); i++) {
            if (up.get(i) == 1) {
                return true;
            }
        }
        return false;
    }

    /** Tries a slot's first connection until it succeeds; after that, Lettuce's auto-reconnect takes over. */
    private void connectLoop(int slot, int attempt) {
        if (closed) {
            return;
        }
        connector.connect().whenComplete((c, error) -> {
            if (error != null) {
                warnings.warn("redis cache " + target + " unreachable, requests bypass it: "
                        + RedisCacheStore.rootMessage(error));
                long delay = RedisConnector.connectRetryMillis(attempt);
                if (!closed) {
                    resources.eventExecutorGroup().schedule(() -> connectLoop(slot, attempt + 1), delay,
                            TimeUnit.MILLISECONDS);
                }
                return;
            }
            if (closed) {
                c.connection().closeAsync();
                return;
            }
            slots.set(slot, c);
            up.set(slot, 1);
            c.connection().addListener(new StateListener(slot));
            health.connected(true);
            LOG.info("redis cache {} connected (connection {} of {})", target, slot + 1, slots.length());
        });
    }

    private final class StateListener implements RedisConnectionStateListener {
        private final int slot;

        StateListener(int slot) {
            this.slot = slot;
        }

        @Override
        public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
            up.set(slot, 1);
            if (!closed) {
                health.connected(true);
            }
        }

        @Override
        public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
            up.set(slot, 0);
            health.connected(!closed && anyUp());
            if (!closed) {
                warnings.warn("redis cache " + target + " disconnected, requests bypass it until it reconnects");
            }
        }
    }
}
