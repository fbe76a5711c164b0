package io.cachegate.gateway.server;

import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.exchange.ClientResponses;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;

/**
 * Answers requests Netty's HTTP decoder could not read (431 headers too large, 414 request line
 * too long, 400 otherwise) and closes the connection: after a broken message the byte stream
 * cannot be trusted for the next one.
 */
final class DecodeFailureHandler extends ChannelInboundHandlerAdapter {

    private boolean failed;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (failed) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpRequest request && request.decoderResult().isFailure()) {
            failed = true;
            DecoderResult result = request.decoderResult();
            ReferenceCountUtil.release(msg);
            Throwable cause = result.cause();
            if (cause instanceof TooLongHttpHeaderException) {
                ClientResponses.errorThenHalfClose(ctx, ErrorKind.HEADERS_TOO_LARGE, "Request headers are too large");
            } else if (cause instanceof TooLongHttpLineException) {
                ClientResponses.errorThenHalfClose(ctx, ErrorKind.URI_TOO_LONG, "Request line is too long");
            } else {
                ClientResponses.errorThenHalfClose(ctx, ErrorKind.INVALID_REQUEST, "Malformed HTTP request");
            }
            return;
        }
        ctx.fireChannelRead(msg);
    }
}
