package io.cachegate.gateway.server.tls;

import io.micrometer.core.instrument.Counter;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;

/** Counts a failed handshake (the SslHandler closes the connection itself), then leaves the pipeline. */
final class HandshakeOutcome extends ChannelInboundHandlerAdapter {

    private final Counter failed;

    HandshakeOutcome(Counter failed) {
        this.failed = failed;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof SslHandshakeCompletionEvent done) {
            if (!done.isSuccess()) {
                failed.increment();
            }
            ctx.pipeline().remove(this);
        }
        super.userEventTriggered(ctx, event);
    }
}
