package io.cachegate.gateway.server;

import io.cachegate.gateway.metrics.GatewayMetrics;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2Stream;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@code server.idle_timeout} on an HTTP/2 connection: closed (with GOAWAY) once it has had no open stream for that
 * long, whatever else the client sends (PINGs, SETTINGS, a preface that never comes). A stalled stream is its own
 * stream's business: the request stages on it keep their header and body timeouts, and close only that stream.
 */
final class Http2IdleTimeout extends ChannelInboundHandlerAdapter {

    private final Http2Connection connection;
    private final Duration idle;
    private final GatewayMetrics metrics;
    private ChannelHandlerContext ctx;
    private ScheduledFuture<?> timer;

    Http2IdleTimeout(Http2Connection connection, Duration idle, GatewayMetrics metrics) {
        this.connection = connection;
        this.idle = idle;
        this.metrics = metrics;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        connection.addListener(new Http2ConnectionAdapter() {
            @Override
            public void onStreamActive(Http2Stream stream) {
                cancel();
            }

            @Override
            public void onStreamClosed(Http2Stream stream) {
                arm(); // a no-op while other streams are open
            }
        });
        arm();
    }

    private void arm() {
        if (timer != null || connection.numActiveStreams() > 0 || !ctx.channel().isOpen()) {
            return;
        }
        timer = ctx.executor().schedule(this::expired, idle.toNanos(), TimeUnit.NANOSECONDS);
        IdleConnections.idle(ctx.channel());
    }

    private void expired() {
        timer = null;
        if (connection.numActiveStreams() == 0 && ctx.channel().isActive()) {
            metrics.connectionTimedOut("idle");
            ctx.close();
        }
    }

    private void cancel() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        IdleConnections.busy(ctx.channel());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancel();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancel();
    }
}
