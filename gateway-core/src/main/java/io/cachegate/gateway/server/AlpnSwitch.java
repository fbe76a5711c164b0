package io.cachegate.gateway.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;

/**
 * After the TLS handshake: a client that chose {@code h2} by ALPN gets HTTP/2; any other (or none) keeps the
 * HTTP/1.1 handlers already in place. Bytes read before the handshake ends are held by Netty's base class, then
 * passed on to whichever protocol it chose.
 */
final class AlpnSwitch extends ApplicationProtocolNegotiationHandler {

    private final Http2Switch http2;

    AlpnSwitch(Http2Switch http2) {
        super(ApplicationProtocolNames.HTTP_1_1);
        this.http2 = http2;
    }

    @Override
    protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
        if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
            http2.install(ctx);
        }
    }

    /** Counted by the TLS handlers already; closed without a log line per failed client. */
    @Override
    protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
