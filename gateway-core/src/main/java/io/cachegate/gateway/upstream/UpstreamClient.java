package io.cachegate.gateway.upstream;

import io.cachegate.config.Ticker;
import io.cachegate.gateway.transport.Transport;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.FullHttpRequest;
import java.net.URI;

/** Starts calls to backend URLs over pooled, keep-alive connections. */
public final class UpstreamClient implements UpstreamCaller, AutoCloseable {

    private final UpstreamPools pools;
    private final Ticker ticker;

    public UpstreamClient(Transport transport, int eventLoops, Ticker ticker) {
        this.pools = new UpstreamPools(transport, eventLoops);
        this.ticker = ticker;
    }

    @Override
    public UpstreamCall call(EventLoop loop, URI url, UpstreamSettings settings, FullHttpRequest request,
                             UpstreamListener listener) {
        UpstreamCall call = new UpstreamCall(loop, pools.pool(loop, url, settings), settings, request, listener,
                ticker);
        call.start();
        return call;
    }

    @Override
    public void close() {
        pools.close();
    }
}
