package io.cachegate.gateway.server;

import io.cachegate.gateway.metrics.GatewayMetrics;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.group.ChannelGroup;

/** Counts open client connections and tracks them, so a graceful shutdown can find and close them. */
@ChannelHandler.Sharable
final class ConnectionCounter extends ChannelInboundHandlerAdapter {

    private final GatewayMetrics metrics;
    private final ChannelGroup channels;

    ConnectionCounter(GatewayMetrics metrics, ChannelGroup channels) {
        this.metrics = metrics;
        this.channels = channels;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        metrics.connectionOpened();
        channels.add(ctx.channel());
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        metrics.connectionClosed();
        ctx.fireChannelInactive();
    }
}
