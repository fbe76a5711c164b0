package io.cachegate.gateway.server;

import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.exchange.ClientResponses;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2ServerUpgradeCodec;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import java.util.List;

/**
 * {@code Upgrade: h2c} (RFC 7540 3.2) on a connection's first request: Netty's upgrade handler answers 101, the
 * HTTP/1.1 handlers leave ({@link Http2Switch}), and the request, gathered whole up to {@code server.max_body_bytes},
 * is answered as HTTP/2 stream 1. Sits after the front door and the head check, so a request they refuse never
 * upgrades. A later request's Upgrade header is ignored: answers may still be owed on the connection by then; so
 * the handler leaves the pipeline when the second request arrives.
 */
final class H2cUpgrade extends HttpServerUpgradeHandler {

    private final long maxBytes;
    private int requests;

    H2cUpgrade(Http2Switch http2, int maxBytes) {
        super(ctx -> Http2Switch.removeHttp1(ctx.pipeline(), Http2Switch.UPGRADE), protocol -> {
            if (!AsciiString.contentEquals(Http2CodecUtil.HTTP_UPGRADE_PROTOCOL_NAME, protocol)) {
                return null;
            }
            Http2FrameCodec codec = http2.codec();
            return new Http2ServerUpgradeCodec(codec, http2.after(codec));
        }, maxBytes);
        this.maxBytes = maxBytes;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, HttpObject msg, List<Object> out) throws Exception {
        if (msg instanceof HttpRequest && ++requests > 1) {
            // Only a connection's first request may upgrade: from the second on this handler would only pass
            // every request object on, so it leaves the pipeline (one hand less for the rest of the connection).
            ctx.pipeline().remove(this);
            out.add(ReferenceCountUtil.retain(msg));
            return;
        }
        super.decode(ctx, msg, out);
    }

    @Override
    protected boolean shouldHandleUpgradeRequest(HttpRequest request) {
        return requests == 1 && super.shouldHandleUpgradeRequest(request);
    }

    /** A chunked upgrade request over the limit (a declared length over it was refused before): the usual 413. */
    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        ClientResponses.errorThenHalfClose(ctx, ErrorKind.BODY_TOO_LARGE,
                "Request body is larger than the limit of " + maxBytes + " bytes");
    }
}
