package io.cachegate.simulator;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import java.util.Date;

/**
 * Puts on every answer the headers real backends send about themselves: vLLM's server ({@code server: uvicorn},
 * {@code date}) and a hosted API's account room ({@code x-ratelimit-*}, here the replica's free slots), so tests
 * see what a gateway must not pass on to its tenants.
 */
@ChannelHandler.Sharable
final class BackendHeaders extends ChannelOutboundHandlerAdapter {

    private final ConcurrencyGate gate;
    private final int capacity;

    BackendHeaders(ConcurrencyGate gate, int capacity) {
        this.gate = gate;
        this.capacity = capacity;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse response) {
            response.headers()
                    .set(HttpHeaderNames.SERVER, "uvicorn")
                    .set(HttpHeaderNames.DATE, DateFormatter.format(new Date()))
                    .set("x-ratelimit-limit-requests", capacity)
                    .set("x-ratelimit-remaining-requests", Math.max(0, capacity - gate.active() - gate.queued()));
        }
        ctx.write(msg, promise);
    }
}
