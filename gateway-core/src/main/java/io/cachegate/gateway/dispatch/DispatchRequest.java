package io.cachegate.gateway.dispatch;

import io.cachegate.config.ResolvedRoute;
import io.cachegate.gateway.api.OpenAiRequest;
import io.cachegate.gateway.proxy.ActiveExchange;
import io.cachegate.gateway.proxy.ResponseTap;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import java.util.function.Consumer;

/**
 * One request on its way to a backend.
 *
 * @param request handed over: the dispatch passes it to one exchange, or releases it
 * @param parsed the parsed body; null for pass-through requests
 * @param tenant the tenant id ("default" without tenants)
 * @param endpoint the endpoint's metric name
 * @param routeLabel the route index for metrics
 * @param xCache the X-Cache value of the answer (MISS or BYPASS)
 * @param tap observes the answer (the cache's capture and coalescing)
 * @param onDone runs once when the request has been answered, however
 * @param onStarted receives the exchange's handle just before it starts, so the connection can cancel it
 */
public record DispatchRequest(ChannelHandlerContext ctx, FullHttpRequest request, OpenAiRequest parsed,
                              ResolvedRoute route, String tenant, String requestId, long startNanos, boolean keepAlive,
                              String endpoint, String routeLabel, CharSequence xCache, ResponseTap tap, Runnable onDone,
                              Consumer<ActiveExchange> onStarted) {

    DispatchRequest withRequest(FullHttpRequest replaced) {
        return replaced == request ? this : new DispatchRequest(ctx, replaced, parsed, route, tenant, requestId,
                startNanos, keepAlive, endpoint, routeLabel, xCache, tap, onDone, onStarted);
    }
}
