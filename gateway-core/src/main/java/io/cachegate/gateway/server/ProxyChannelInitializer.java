package io.cachegate.gateway.server;

import io.cachegate.config.ServerSettings;
import io.cachegate.gateway.exchange.AnswerRewrite;
import io.cachegate.gateway.exchange.ResponseHeaders;
import io.cachegate.gateway.server.tls.ListenerTls;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import java.util.Optional;

/** The proxy listener's pipeline, in small named stages; the last one takes each request through the chain. */
public final class ProxyChannelInitializer extends ChannelInitializer<SocketChannel> {

    private static final int MAX_INITIAL_LINE = 8192;
    private static final int MAX_CHUNK = 64 * 1024;

    private final RequestPaths paths;
    private final ConnectionCounter counter;
    private final Optional<ListenerTls> tls;

    public ProxyChannelInitializer(RequestPaths paths, ChannelGroup channels) {
        this(paths, channels, Optional.empty());
    }

    /** With {@code tls}, the listener speaks HTTPS only; a connection refused at accept costs no handshake. */
    public ProxyChannelInitializer(RequestPaths paths, ChannelGroup channels, Optional<ListenerTls> tls) {
        this.paths = paths;
        this.counter = new ConnectionCounter(paths.current().services().metrics(), channels, paths);
        this.tls = tls;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        ProxyServices services = paths.current().services();
        ServerSettings server = services.policy().server();
        ReadTimeouts timeouts = new ReadTimeouts(server.connections(), services.metrics());
        ChannelPipeline p = ch.pipeline();
        p.addLast("connections", counter);
        tls.ifPresent(t -> t.addTo(ch));
        p.addLast("head-bytes", timeouts.bytes());
        p.addLast("http", new StrictServerCodec(new HttpDecoderConfig()
                .setMaxInitialLineLength(MAX_INITIAL_LINE)
                .setMaxHeaderSize(server.maxHeaderBytes())
                .setMaxChunkSize(MAX_CHUNK)
                .setAllowDuplicateContentLengths(false)   // two Content-Lengths, even equal: refused
                .setStrictLineParsing(true)));            // bare LF line ends: refused
        p.addLast("read-timeouts", timeouts);
        p.addLast("front-door", new FrontDoor());
        p.addLast("head-check", new HeadCheck(paths));
        p.addLast("body-limit", new BodyLimitAggregator((int) Math.min(Integer.MAX_VALUE, server.maxBodyBytes())));
        p.addLast("answer-rewrite", AnswerRewrite.INSTANCE); // a merged embeddings batch replaces the backend's body
        p.addLast("exchange-headers", ResponseHeaders.INSTANCE); // headers stages set, on every answer
        p.addLast("proxy", new ProxyRequestHandler(paths));
    }
}
