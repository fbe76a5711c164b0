package io.cachegate.gateway.server;

import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.exchange.RequestIds;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns each complete client request into an {@link Exchange} and takes it through the request path's stages.
 * One request per connection is answered at a time; pipelined ones wait in a small bounded queue with reading
 * paused. A client that leaves cancels the exchange in progress.
 */
final class ProxyRequestHandler extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(ProxyRequestHandler.class);
    private static final int MAX_PIPELINED = 8;

    private final RequestPaths paths;
    private final ArrayDeque<FullHttpRequest> pipelined = new ArrayDeque<>();
    private Exchange current;

    ProxyRequestHandler(RequestPaths paths) {
        this.paths = paths;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest request)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (current != null) {
            if (pipelined.size() >= MAX_PIPELINED) {
                request.release();
                ctx.close();
                return;
            }
            pipelined.add(request);
            ctx.channel().config().setAutoRead(false);
            return;
        }
        handle(ctx, request);
    }

    private void handle(ChannelHandlerContext ctx, FullHttpRequest request) {
        String requestId = RequestIds.accept(request.headers().get(GatewayHeaders.X_REQUEST_ID));
        boolean keepAlive = HttpUtil.isKeepAlive(request) && !paths.draining();
        RequestPaths.Current path = paths.current(); // the policy this request lives under, to its end
        ProxyServices services = path.services();
        Exchange x = new Exchange(ctx, request, requestId, keepAlive, services.metrics(), services.ticker(),
                () -> exchangeDone(ctx));
        current = x; // cleared by exchangeDone, possibly before start returns (a hit from memory)
        path.chain().start(x);
    }

    private void exchangeDone(ChannelHandlerContext ctx) {
        current = null;
        FullHttpRequest next = pipelined.poll();
        if (next != null) {
            ctx.channel().eventLoop().execute(() -> {
                if (ctx.channel().isActive()) {
                    handle(ctx, next);
                } else {
                    next.release();
                }
            });
        } else if (!ctx.channel().config().isAutoRead() && ctx.channel().isActive()) {
            ctx.channel().config().setAutoRead(true);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (current != null) {
            current.cancel();
        }
        FullHttpRequest queued;
        while ((queued = pipelined.poll()) != null) {
            queued.release();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("client connection error: {}", cause.toString());
        ctx.close();
    }
}
