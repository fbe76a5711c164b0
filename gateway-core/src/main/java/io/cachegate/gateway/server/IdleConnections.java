package io.cachegate.gateway.server;

import io.netty.channel.Channel;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;
import java.time.Duration;

/**
 * Which client connections are idle (no request in progress) and since when, so that a listener at its connection
 * cap closes a long-idle connection for a new client instead of turning the new client away, as nginx reuses idle
 * keep-alive connections: sockets held open and silent then cannot lock every other client out until their idle
 * timeout. {@link ReadTimeouts} (HTTP/1.1) and {@link Http2IdleTimeout} (HTTP/2: no open stream) set the mark on
 * their event loop; {@link ConnectionCounter} reads it from another, so it lives in a channel attribute.
 */
final class IdleConnections {

    private static final AttributeKey<Long> IDLE_SINCE = AttributeKey.valueOf(IdleConnections.class, "idleSince");
    /** Connections looked at per shed: a bounded cost per accept over the cap, whatever the number open. */
    static final int EXAMINED = 64;
    /** A connection idle for less has had no fair chance to send its request (a client's own new connection). */
    static final Duration MIN_IDLE = Duration.ofSeconds(1);

    private IdleConnections() {
    }

    static void idle(Channel channel) {
        channel.attr(IDLE_SINCE).set(System.nanoTime());
    }

    static void busy(Channel channel) {
        channel.attr(IDLE_SINCE).set(null);
    }

    /**
     * Closes the connection idle the longest, at least {@code minIdle}, among the first {@link #EXAMINED} of
     * {@code channels} (a group's order has nothing to do with age: a sample); true when one was closed.
     */
    static boolean shedOne(Iterable<Channel> channels, Duration minIdle) {
        long now = System.nanoTime();
        Channel oldest = null;
        Long oldestSince = null;
        int examined = 0;
        for (Channel channel : channels) {
            if (examined++ == EXAMINED) {
                break;
            }
            Long since = channel.attr(IDLE_SINCE).get();
            if (since != null && now - since >= minIdle.toNanos() && (oldest == null || since - oldestSince < 0)) {
                oldest = channel;
                oldestSince = since;
            }
        }
        if (oldest == null) {
            return false;
        }
        Attribute<Long> mark = oldest.attr(IDLE_SINCE);
        // Still idle since then, and not taken by a shed on another loop: the same boxed value, compared by reference.
        if (!mark.compareAndSet(oldestSince, null)) {
            return false;
        }
        oldest.close();
        return true;
    }
}
