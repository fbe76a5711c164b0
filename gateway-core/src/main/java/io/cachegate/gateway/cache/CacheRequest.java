package io.cachegate.gateway.cache;

import io.cachegate.config.ResolvedRoute;
import io.cachegate.gateway.api.OpenAiRequest;
import io.cachegate.gateway.proxy.ActiveExchange;
import io.cachegate.gateway.proxy.ResponseTap;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;

/**
 * One validated, routed request as the cache layer sees it.
 *
 * @param request the client's request; the layer passes it on to exactly one upstream exchange, or releases it
 * @param routeLabel the route index for metrics
 * @param endpoint the endpoint's metric name
 * @param upstream starts the upstream exchange for this request (taking the request), with an X-Cache value and a tap
 * @param onDone to run once when the request has been answered, however
 */
public record CacheRequest(ChannelHandlerContext ctx, FullHttpRequest request, OpenAiRequest parsed, ResolvedRoute route,
                           String tenant, String requestId, long startNanos, boolean keepAlive, String routeLabel,
                           String endpoint, Upstream upstream, Runnable onDone) {

    /** Starts the call to the backend. */
    @FunctionalInterface
    public interface Upstream {
        ActiveExchange start(CharSequence xCache, ResponseTap tap);
    }
}
