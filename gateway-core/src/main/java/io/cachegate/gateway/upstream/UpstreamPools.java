package io.cachegate.gateway.upstream;

import io.cachegate.gateway.transport.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.netty.channel.pool.AbstractChannelPoolHandler;
import io.netty.channel.pool.ChannelHealthChecker;
import io.netty.channel.pool.ChannelPool;
import io.netty.channel.pool.FixedChannelPool;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.util.AttributeKey;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLException;

/**
 * Connection pools to backend URLs: one capped pool per (event loop, URL), so an upstream
 * connection always lives on the same loop as the client connection it serves and no hand-off
 * between threads is needed (Zuul's PerServerConnectionPool does the same).
 */
final class UpstreamPools implements AutoCloseable {

    private static final AttributeKey<Integer> USES = AttributeKey.valueOf("cachegate.upstream.uses");
    private static final int MAX_PENDING_ACQUIRES = 4096;
    private static final int MAX_RESPONSE_HEADER_BYTES = 64 * 1024;

    private record Key(EventLoop loop, String origin) {
    }

    private final Transport transport;
    private final int loops;
    private final Map<Key, FixedChannelPool> pools = new ConcurrentHashMap<>();
    private volatile SslContext sslContext;

    UpstreamPools(Transport transport, int loops) {
        this.transport = transport;
        this.loops = loops;
    }

    ChannelPool pool(EventLoop loop, URI url, UpstreamSettings settings) {
        String origin = url.getScheme() + "://" + url.getHost() + ":" + port(url);
        return pools.computeIfAbsent(new Key(loop, origin), k -> newPool(loop, url, settings));
    }

    /** Counts a use of a pooled connection; true when it had served a request before. */
    static boolean markUsed(Channel channel) {
        Integer uses = channel.attr(USES).get();
        int next = uses == null ? 1 : uses + 1;
        channel.attr(USES).set(next);
        return next > 1;
    }

    private FixedChannelPool newPool(EventLoop loop, URI url, UpstreamSettings settings) {
        boolean tls = "https".equalsIgnoreCase(url.getScheme());
        SslContext ssl = tls ? sslContext() : null;
        String host = url.getHost();
        int port = port(url);
        Bootstrap bootstrap = new Bootstrap()
                .group(loop)
                .channel(transport.clientChannel())
                .remoteAddress(host, port)
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, settings.connectMillis()));
        int perLoop = Math.max(1, (settings.maxConnectionsPerUrl() + loops - 1) / loops);
        AbstractChannelPoolHandler handler = new AbstractChannelPoolHandler() {
            @Override
            public void channelCreated(Channel ch) {
                ChannelPipeline p = ch.pipeline();
                if (ssl != null) {
                    p.addLast("tls", ssl.newHandler(ch.alloc(), host, port));
                }
                p.addLast("http", new HttpClientCodec(4096, MAX_RESPONSE_HEADER_BYTES, 64 * 1024));
                p.addLast("upstream", new UpstreamHandler());
            }
        };
        // Waiting for a free connection is bounded by the first-byte timeout and by MAX_PENDING_ACQUIRES.
        return new FixedChannelPool(bootstrap, handler, ChannelHealthChecker.ACTIVE,
                FixedChannelPool.AcquireTimeoutAction.FAIL, settings.firstByteNanos() / 1_000_000,
                perLoop, MAX_PENDING_ACQUIRES, true, true);
    }

    private SslContext sslContext() {
        SslContext ctx = sslContext;
        if (ctx == null) {
            try {
                ctx = SslContextBuilder.forClient().build();
            } catch (SSLException e) {
                throw new IllegalStateException("cannot create a TLS context for https backends", e);
            }
            sslContext = ctx;
        }
        return ctx;
    }

    private static int port(URI url) {
        if (url.getPort() > 0) {
            return url.getPort();
        }
        return "https".equalsIgnoreCase(url.getScheme()) ? 443 : 80;
    }

    @Override
    public void close() {
        pools.values().forEach(FixedChannelPool::close);
        pools.clear();
    }
}
