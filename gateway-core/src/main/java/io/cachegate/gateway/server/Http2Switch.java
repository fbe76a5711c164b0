package io.cachegate.gateway.server;

import io.cachegate.config.ServerSettings;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns one connection's pipeline from HTTP/1.1 into HTTP/2: Netty's frame codec with the gateway's limits, an
 * idle timer for the connection ({@link Http2IdleTimeout}), and a multiplexer that gives each stream a child channel
 * running the HTTP/1.1 request stages on HttpObjects ({@link Http2StreamInitializer}). The HTTP/1.1 handlers leave.
 *
 * <p>Limits per connection: at most {@link #MAX_CONCURRENT_STREAMS} open streams (one more is refused with
 * RST_STREAM REFUSED_STREAM), a header list of at most {@code server.max_header_bytes} (431 above), a body of at most
 * {@code server.max_body_bytes} per stream, and flow-control windows at the protocol's 64 KiB defaults, so a stream
 * buffers no more than that ahead of what its request stages have taken.
 */
final class Http2Switch {

    /**
     * Open streams per connection at most (SETTINGS_MAX_CONCURRENT_STREAMS). RFC 9113 5.1.2 recommends no less than
     * 100; each open stream may hold up to {@code server.max_body_bytes} while its body is gathered, so a connection
     * holds at most 100 times that, as 100 HTTP/1.1 connections would.
     */
    static final int MAX_CONCURRENT_STREAMS = 100;
    static final String ALPN = "alpn";
    static final String PREFACE = "h2c-preface";
    static final String UPGRADE = "h2c-upgrade";
    /** The handlers of an HTTP/1.1 connection, by name, removed when it becomes HTTP/2. */
    private static final List<String> HTTP1 = List.of("head-bytes", PREFACE, "http", "read-timeouts", "front-door",
            "head-check", ProxyChannelInitializer.BODY_INTAKE, UPGRADE, "body-limit", "proxy");

    private final RequestPaths paths;
    private final ServerSettings server;
    private final GatewayMetrics metrics;

    Http2Switch(RequestPaths paths, ServerSettings server, GatewayMetrics metrics) {
        this.paths = paths;
        this.server = server;
        this.metrics = metrics;
    }

    /** A new frame codec with the gateway's limits. */
    Http2FrameCodec codec() {
        Http2Settings settings = Http2Settings.defaultSettings()
                .maxConcurrentStreams(MAX_CONCURRENT_STREAMS)
                .maxHeaderListSize(server.maxHeaderBytes());
        // Closed means closed: the shutdown grace has already waited for answers, an idle connection has none.
        return Http2FrameCodecBuilder.forServer().initialSettings(settings).validateHeaders(true)
                .gracefulShutdownTimeoutMillis(0).build();
    }

    /**
     * The handlers that follow {@code codec}: the connection's idle timer, the stream multiplexer, and last the end
     * of the connection's errors (a reset by the client and the like: closed, logged at debug).
     */
    ChannelHandler[] after(Http2FrameCodec codec) {
        return new ChannelHandler[] {
            new Http2IdleTimeout(codec.connection(), server.connections().idleTimeout(), metrics),
            new Http2MultiplexHandler(new Http2StreamInitializer(paths)),
            ConnectionErrors.INSTANCE
        };
    }

    /** What reaches the end of an HTTP/2 connection's pipeline: the HTTP/2 codec has answered what it could. */
    @ChannelHandler.Sharable
    static final class ConnectionErrors extends ChannelInboundHandlerAdapter {

        static final ConnectionErrors INSTANCE = new ConnectionErrors();
        private static final Logger log = LoggerFactory.getLogger(ConnectionErrors.class);

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            log.debug("client HTTP/2 connection error: {}", cause.toString());
            ctx.close();
        }
    }

    /** Puts HTTP/2 right after {@code ctx} and removes the HTTP/1.1 handlers; the caller leaves the pipeline itself. */
    void install(ChannelHandlerContext ctx) {
        ChannelPipeline p = ctx.pipeline();
        Http2FrameCodec codec = codec();
        ChannelHandler[] rest = after(codec);
        String previous = "h2";
        p.addAfter(ctx.name(), previous, codec);
        for (int i = 0; i < rest.length; i++) {
            String name = "h2-" + i;
            p.addAfter(previous, name, rest[i]);
            previous = name;
        }
        removeHttp1(p, ctx.name());
    }

    /** Removes the HTTP/1.1 handlers still in {@code p}, except {@code keep}. */
    static void removeHttp1(ChannelPipeline p, String keep) {
        for (String name : HTTP1) {
            if (!name.equals(keep) && p.get(name) != null) {
                p.remove(name);
            }
        }
    }
}
