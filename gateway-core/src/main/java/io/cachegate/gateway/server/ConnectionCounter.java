package io.cachegate.gateway.server;

import io.cachegate.config.Policy;
import io.cachegate.config.ServerSettings;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.micrometer.core.instrument.Counter;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.group.ChannelGroup;
import io.netty.util.AttributeKey;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts open client connections, in total and per client address, and closes one over
 * {@code server.max_connections} (lowered to the listener's {@link DescriptorBudget} when the open-file limit is
 * short) or {@code server.max_connections_per_address} at accept, before anything is read; at the total cap it
 * first closes a long-idle connection to make room ({@link IdleConnections}).
 * Tracks the admitted ones so a graceful shutdown can find and close them. Shared by every connection of the
 * listener (the counts span the event loops); the caps are read from the current policy for each new connection.
 */
@ChannelHandler.Sharable
final class ConnectionCounter extends ChannelInboundHandlerAdapter {

    /** The address a connection was counted under; absent on a refused connection, which is never counted. */
    private static final AttributeKey<InetAddress> COUNTED = AttributeKey.valueOf(ConnectionCounter.class, "counted");

    private final GatewayMetrics metrics;
    private final ChannelGroup channels;
    private final RequestPaths paths;
    private final DescriptorBudget descriptors;
    private final Duration minIdle;
    private final Counter shed;
    private final AtomicInteger total = new AtomicInteger();
    private final ConcurrentMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();

    ConnectionCounter(GatewayMetrics metrics, ChannelGroup channels, RequestPaths paths, DescriptorBudget descriptors) {
        this(metrics, channels, paths, descriptors, IdleConnections.MIN_IDLE);
    }

    /** @param minIdle how long a connection must have been idle before it may be closed for a new one */
    ConnectionCounter(GatewayMetrics metrics, ChannelGroup channels, RequestPaths paths, DescriptorBudget descriptors,
                      Duration minIdle) {
        this.metrics = metrics;
        this.channels = channels;
        this.paths = paths;
        this.descriptors = descriptors;
        this.minIdle = minIdle;
        this.shed = Counter.builder("cachegate.connections.shed")
                .description("Idle connections closed to admit a new one at the connection cap")
                .register(metrics.registry());
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        Policy policy = paths.current().services().policy();
        InetAddress address = address(ctx.channel().remoteAddress());
        String refused = admit(address, descriptors.clientCap(policy), policy.server().connections());
        if (refused != null) {
            metrics.connectionRefused(refused);
            ctx.close(); // not fired on: the pipeline behind never sees this connection
            return;
        }
        ctx.channel().attr(COUNTED).set(address);
        metrics.connectionOpened();
        channels.add(ctx.channel());
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        InetAddress address = ctx.channel().attr(COUNTED).getAndSet(null);
        if (address == null) {
            return; // refused at accept
        }
        total.decrementAndGet();
        perAddress.computeIfPresent(address, (a, n) -> n == 1 ? null : n - 1);
        metrics.connectionClosed();
        ctx.fireChannelInactive();
    }

    /**
     * Counts the connection in, or returns why it is refused ({@code total}, {@code per_address}). At the total cap
     * a long-idle connection is closed to make room: the count goes back under the cap when its close completes.
     */
    private String admit(InetAddress address, int cap, ServerSettings.Connections caps) {
        if (total.incrementAndGet() > cap) {
            if (!IdleConnections.shedOne(channels, minIdle)) {
                total.decrementAndGet();
                return "total";
            }
            shed.increment();
        }
        boolean[] over = new boolean[1];
        perAddress.compute(address, (a, n) -> {
            int now = n == null ? 0 : n;
            if (now >= caps.maxConnectionsPerAddress()) {
                over[0] = true;
                return n;
            }
            return now + 1;
        });
        if (over[0]) {
            total.decrementAndGet();
            return "per_address";
        }
        return null;
    }

    private static InetAddress address(SocketAddress remote) {
        if (remote instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return inet.getAddress();
        }
        return InetAddress.getLoopbackAddress(); // an embedded or local channel: one shared bucket
    }
}
