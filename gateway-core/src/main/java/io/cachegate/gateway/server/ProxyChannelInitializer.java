package io.cachegate.gateway.server;

import io.cachegate.config.ServerSettings;
import io.cachegate.gateway.server.tls.ListenerTls;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import java.util.Optional;

/**
 * The proxy listener's pipeline, in small named stages; the last one takes each request through the chain. A
 * connection starts as HTTP/1.1 and becomes HTTP/2 ({@link Http2Switch}) on the h2c preface, an accepted
 * {@code Upgrade: h2c} or ALPN {@code h2}; each HTTP/2 stream then gets the same request stages of its own.
 */
public final class ProxyChannelInitializer extends ChannelInitializer<SocketChannel> {

    private static final int MAX_INITIAL_LINE = 8192;
    private static final int MAX_CHUNK = 64 * 1024;
    static final String BODY_INTAKE = "body-intake";

    private final RequestPaths paths;
    private final ConnectionCounter counter;
    private final Optional<ListenerTls> tls;

    public ProxyChannelInitializer(RequestPaths paths, ChannelGroup channels) {
        this(paths, channels, Optional.empty(), DescriptorBudget.UNLIMITED);
    }

    /**
     * With {@code tls}, the listener speaks HTTPS only; a connection refused at accept costs no handshake.
     * {@code descriptors} may lower {@code server.max_connections} to what the open-file limit leaves.
     */
    public ProxyChannelInitializer(RequestPaths paths, ChannelGroup channels, Optional<ListenerTls> tls,
                                   DescriptorBudget descriptors) {
        this.paths = paths;
        this.counter = new ConnectionCounter(paths.current().services().metrics(), channels, paths, descriptors);
        this.tls = tls;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        ProxyServices services = paths.current().services();
        ServerSettings server = services.policy().server();
        ReadTimeouts timeouts = new ReadTimeouts(server.connections(), services.metrics());
        Http2Switch http2 = new Http2Switch(paths, server, services.metrics());
        ChannelPipeline p = ch.pipeline();
        p.addLast("connections", counter);
        tls.ifPresent(t -> {
            t.addTo(ch);
            p.addLast(Http2Switch.ALPN, new AlpnSwitch(http2));
        });
        p.addLast("head-bytes", timeouts.bytes());
        p.addLast(Http2Switch.PREFACE, new PriorKnowledge(http2));
        p.addLast("http", new StrictServerCodec(new HttpDecoderConfig()
                .setMaxInitialLineLength(MAX_INITIAL_LINE)
                .setMaxHeaderSize(server.maxHeaderBytes())
                .setMaxChunkSize(MAX_CHUNK)
                .setAllowDuplicateContentLengths(false)   // two Content-Lengths, even equal: refused
                .setStrictLineParsing(true)));            // bare LF line ends: refused
        addRequestStages(p, paths, server, timeouts);
        // After the checks: an upgrade request is refused like any other before it may change the protocol; its
        // body, gathered by the intake within the budgets, reaches the upgrade whole.
        p.addAfter(BODY_INTAKE, Http2Switch.UPGRADE, new H2cUpgrade(http2, maxBody(server)));
    }

    /** The stages from decoded request objects to the chain: the same on an HTTP/1.1 connection and an HTTP/2 stream. */
    static void addRequestStages(ChannelPipeline p, RequestPaths paths, ServerSettings server, ReadTimeouts timeouts) {
        CheckedHead checked = new CheckedHead();
        p.addLast("read-timeouts", timeouts);
        p.addLast("front-door", new FrontDoor());
        p.addLast("head-check", new HeadCheck(paths, checked));
        p.addLast(BODY_INTAKE, new BodyIntake(paths.bodies(), checked, server)); // within the buffered-body budgets
        p.addLast("body-limit", new BodyLimitAggregator(maxBody(server)));
        p.addLast("proxy", new ProxyRequestHandler(paths, checked));
    }

    static int maxBody(ServerSettings server) {
        return (int) Math.min(Integer.MAX_VALUE, server.maxBodyBytes());
    }
}
