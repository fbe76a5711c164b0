package io.cachegate.gateway.server;

import io.cachegate.config.ServerSettings;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.codec.http2.HttpConversionUtil;

/**
 * One HTTP/2 stream's pipeline: Netty turns its frames into HttpObjects (and answers back into frames, without the
 * connection-level headers HTTP/2 forbids), then the same request stages as on an HTTP/1.1 connection: read
 * timeouts, front door, head check, body intake, body limit, the chain. The stream's child channel is written as
 * a connection is: a write completes when its frames have left under the stream's flow-control window, so a
 * streamed answer reads its backend no faster than the client's window opens, as over HTTP/1.1.
 */
final class Http2StreamInitializer extends ChannelInitializer<Http2StreamChannel> {

    private final RequestPaths paths;

    Http2StreamInitializer(RequestPaths paths) {
        this.paths = paths;
    }

    @Override
    protected void initChannel(Http2StreamChannel ch) {
        ProxyServices services = paths.current().services();
        ServerSettings server = services.policy().server();
        ChannelPipeline p = ch.pipeline();
        p.addLast("h2-http", new Http2StreamFrameToHttpObjectCodec(true, true));
        p.addLast("h2-extension-headers", ExtensionHeaders.INSTANCE);
        ProxyChannelInitializer.addRequestStages(p, paths, server, new ReadTimeouts(server.connections(),
                services.metrics()));
    }

    /**
     * Drops the {@code x-http2-*} headers Netty adds to a converted request (stream id, scheme, path): they are
     * not the client's and must not reach a backend.
     */
    @ChannelHandler.Sharable
    static final class ExtensionHeaders extends ChannelInboundHandlerAdapter {

        static final ExtensionHeaders INSTANCE = new ExtensionHeaders();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpRequest request) {
                for (HttpConversionUtil.ExtensionHeaderNames name : HttpConversionUtil.ExtensionHeaderNames.values()) {
                    request.headers().remove(name.text());
                }
            }
            ctx.fireChannelRead(msg);
        }
    }
}
