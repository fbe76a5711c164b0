package io.cachegate.gateway.server;

import io.netty.channel.Channel;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Which client connections are idle (no request in progress) and since when, so that a listener at its connection
 * cap closes a long-idle connection for a new client instead of turning the new client away, as nginx reuses idle
 * keep-alive connections: sockets held open and silent then cannot lock every other client out until their idle
 * timeout. {@link ReadTimeouts} (HTTP/1.1) and {@link Http2IdleTimeout} (HTTP/2: no open stream) set the mark on
 * their event loop; {@link ConnectionCounter} reads it from another, so it lives in a channel attribute.
 */
final class IdleConnections {

    /** Each connection's mark: since when it is idle (on {@link System#nanoTime}), or {@link #BUSY}. */
    private static final AttributeKey<AtomicLong> MARK = AttributeKey.valueOf(IdleConnections.class, "idleSince");
    private static final long BUSY = Long.MIN_VALUE;
    /** Connections looked at per shed: a bounded cost per accept over the cap, whatever the number open. */
    static final int EXAMINED = 64;
    /** A connection idle for less has had no fair chance to send its request (a client's own new connection). */
    static final Duration MIN_IDLE = Duration.ofSeconds(1);

    private IdleConnections() {
    }

    /**
     * The connection's mark, made on first use: a handler keeps it and writes a long to it per request, where a
     * boxed value set on an attribute looked up each time cost ~1% of a cached answer's CPU.
     */
    static AtomicLong mark(Channel channel) {
        Attribute<AtomicLong> attribute = channel.attr(MARK);
        AtomicLong mark = attribute.get();
        if (mark == null) {
            AtomicLong made = new AtomicLong(BUSY);
            mark = attribute.setIfAbsent(made);
            if (mark == null) {
                mark = made;
            }
        }
        return mark;
    }

    static void idle(Channel channel) {
        idle(mark(channel));
    }

    static void busy(Channel channel) {
        busy(mark(channel));
    }

    /** Idle from now. Written on the connection's loop, read by a shed on another: ordered, no fence needed. */
    static void idle(AtomicLong mark) {
        mark.setRelease(System.nanoTime());
    }

    static void busy(AtomicLong mark) {
        mark.setRelease(BUSY);
    }

    /**
     * Closes the connection idle the longest, at least {@code minIdle}, among the first {@link #EXAMINED} of
     * {@code channels} (a group's order has nothing to do with age: a sample); true when one was closed.
     */
    static boolean shedOne(Iterable<Channel> channels, Duration minIdle) {
        long now = System.nanoTime();
        Channel oldest = null;
        AtomicLong oldestMark = null;
        long oldestSince = 0;
        int examined = 0;
        for (Channel channel : channels) {
            if (examined++ == EXAMINED) {
                break;
            }
            AtomicLong mark = channel.attr(MARK).get();
            long since = mark == null ? BUSY : mark.get();
            if (since != BUSY && now - since >= minIdle.toNanos() && (oldest == null || since - oldestSince < 0)) {
                oldest = channel;
                oldestMark = mark;
                oldestSince = since;
            }
        }
        // Still idle since then, and not taken by a shed on another loop.
        if (oldest == null || !oldestMark.compareAndSet(oldestSince, BUSY)) {
            return false;
        }
        oldest.close();
        return true;
    }
}
