package io.cachegate.gateway.upstream;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;

/** The last handler of every pooled upstream connection: hands what arrives to the call now using it. */
final class UpstreamHandler extends ChannelInboundHandlerAdapter {

    static final AttributeKey<UpstreamCall> CALL = AttributeKey.valueOf("cachegate.upstream.call");

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        UpstreamCall call = ctx.channel().attr(CALL).get();
        if (call == null) {
            // Bytes on an idle pooled connection: nothing to give them to, and the connection is suspect.
            ReferenceCountUtil.release(msg);
            ctx.close();
            return;
        }
        call.onMessage(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        UpstreamCall call = ctx.channel().attr(CALL).get();
        if (call != null) {
            call.onReadComplete();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        UpstreamCall call = ctx.channel().attr(CALL).get();
        if (call != null) {
            call.onClosed();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        UpstreamCall call = ctx.channel().attr(CALL).get();
        if (call != null) {
            call.onError(cause);
        }
        ctx.close();
    }
}
