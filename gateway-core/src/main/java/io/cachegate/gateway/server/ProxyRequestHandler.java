package io.cachegate.gateway.server;

import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.exchange.ClientResponses;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.exchange.RequestIds;
import io.cachegate.gateway.quota.HeadPass;
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
 * paused. Pipelined requests beyond that bound, already read in the same write, are refused in order with 429
 * (their bodies are released, only the refusal is kept); a {@link Refusal} from the front door is answered in
 * its turn. A client that leaves cancels the exchange in progress.
 */
final class ProxyRequestHandler extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(ProxyRequestHandler.class);
    static final int MAX_PIPELINED = 8;
    /** Refusals held for one connection at most; a client sending more in one go is cut off. */
    private static final int MAX_HELD = 1024;

    private final RequestPaths paths;
    private final CheckedHead checked;
    /** {@link Queued} requests and {@link Refusal}s, in the order they arrived. */
    private final ArrayDeque<Object> pipelined = new ArrayDeque<>();
    private int queuedRequests;
    private Exchange current;

    ProxyRequestHandler(RequestPaths paths, CheckedHead checked) {
        this.paths = paths;
        this.checked = checked;
    }

    /** A pipelined request waiting for its turn, with the pass its head took (null without tenant limits). */
    private record Queued(FullHttpRequest request, HeadPass pass) {

        void release() {
            request.release();
            if (pass != null) {
                pass.release();
            }
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Refusal refusal) {
            if (current == null && pipelined.isEmpty()) {
                answer(ctx, refusal);
            } else {
                hold(ctx, refusal);
            }
            return;
        }
        if (!(msg instanceof FullHttpRequest request)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        HeadPass pass = checked.take();
        if (current != null || !pipelined.isEmpty()) {
            if (queuedRequests < MAX_PIPELINED) {
                queuedRequests++;
                hold(ctx, new Queued(request, pass));
            } else {
                Refusal refusal = new Refusal(ErrorKind.TOO_MANY_PIPELINED,
                        "More than " + MAX_PIPELINED + " pipelined requests are waiting on this connection",
                        false, requestId(request));
                new Queued(request, pass).release();
                hold(ctx, refusal);
            }
            return;
        }
        handle(ctx, request, pass);
    }

    private void hold(ChannelHandlerContext ctx, Object item) {
        if (pipelined.size() >= MAX_HELD) {
            if (item instanceof Queued queued) {
                queued.release();
            }
            ctx.close();
            return;
        }
        pipelined.add(item);
        ctx.channel().config().setAutoRead(false);
    }

    private static String requestId(FullHttpRequest request) {
        return RequestIds.accept(request.headers().get(GatewayHeaders.X_REQUEST_ID));
    }

    private void handle(ChannelHandlerContext ctx, FullHttpRequest request, HeadPass pass) {
        RequestIds.Ids ids = RequestIds.forRequest(request.headers().get(GatewayHeaders.X_REQUEST_ID));
        boolean keepAlive = HttpUtil.isKeepAlive(request) && !paths.draining();
        RequestPaths.Current path = paths.current(); // the policy this request lives under, to its end
        ProxyServices services = path.services();
        Exchange x = new Exchange(ctx, request, ids.requestId(), keepAlive, services.ticker(),
                services.observer(), () -> exchangeDone(ctx));
        x.set(RequestIds.GATEWAY_ID, ids.gatewayId());
        if (pass != null) {
            x.set(HeadPass.KEY, pass);
            x.whenFinished(pass::release);
        }
        current = x; // cleared by exchangeDone, possibly before start returns (a hit from memory)
        path.chain().start(x);
    }

    /** Answers a refusal; false when the connection ends with it. */
    private boolean answer(ChannelHandlerContext ctx, Refusal refusal) {
        paths.current().services().observer().refused(refusal.kind().status(), refusal.requestId(), refusal.reason(),
                refusal.tenant());
        if (refusal.close()) {
            releaseQueued();
            ClientResponses.errorThenHalfClose(ctx, refusal.kind(), refusal.message(), refusal.requestId(),
                    refusal.retryLater() ? Math.max(1, refusal.retryAfterSeconds()) : 0, refusal.headers());
            return false;
        }
        boolean keepAlive = !paths.draining();
        if (refusal.retryLater()) {
            ClientResponses.retryLater(ctx, refusal.kind(), refusal.message(), refusal.requestId(), keepAlive,
                    refusal.retryAfterSeconds(), refusal.headers());
        } else {
            ClientResponses.error(ctx, refusal.kind(), refusal.message(), null, refusal.requestId(), keepAlive);
        }
        return keepAlive;
    }

    private void exchangeDone(ChannelHandlerContext ctx) {
        current = null;
        if (pipelined.isEmpty()) {
            if (!ctx.channel().config().isAutoRead() && ctx.channel().isActive()) {
                ctx.channel().config().setAutoRead(true);
            }
            return;
        }
        ctx.channel().eventLoop().execute(() -> {
            if (ctx.channel().isActive()) {
                next(ctx);
            } else {
                releaseQueued();
            }
        });
    }

    /** Answers the queued refusals up to the next queued request, then starts that one. */
    private void next(ChannelHandlerContext ctx) {
        Object item;
        while ((item = pipelined.poll()) != null) {
            if (item instanceof Refusal refusal) {
                if (!answer(ctx, refusal)) {
                    return;
                }
            } else {
                queuedRequests--;
                Queued queued = (Queued) item;
                handle(ctx, queued.request(), queued.pass());
                return;
            }
        }
        if (!ctx.channel().config().isAutoRead()) {
            ctx.channel().config().setAutoRead(true);
        }
    }

    private void releaseQueued() {
        Object queued;
        while ((queued = pipelined.poll()) != null) {
            if (queued instanceof Queued q) {
                q.release();
            }
        }
        queuedRequests = 0;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (current != null) {
            current.cancel();
        }
        releaseQueued();
        checked.release(); // a head let through whose request never became whole
        ctx.fireChannelInactive();
    }

    /** Removed by an h2c upgrade (its request goes on as stream 1, whose head takes a pass of its own) or at close. */
    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseQueued();
        checked.release();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("client connection error: {}", cause.toString());
        ctx.close();
    }
}
