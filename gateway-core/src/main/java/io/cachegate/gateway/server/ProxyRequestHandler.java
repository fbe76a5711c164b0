package io.cachegate.gateway.server;

import io.cachegate.config.ResolvedRoute;
import io.cachegate.config.Tenant;
import io.cachegate.gateway.api.ApiException;
import io.cachegate.gateway.api.Endpoint;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.api.OpenAiRequest;
import io.cachegate.gateway.cache.CacheRequest;
import io.cachegate.gateway.cache.ExactCacheLayer;
import io.cachegate.gateway.dispatch.DispatchRequest;
import io.cachegate.gateway.dispatch.Dispatcher;
import io.cachegate.gateway.proxy.ActiveExchange;
import io.cachegate.gateway.proxy.ClientResponses;
import io.cachegate.gateway.proxy.GatewayHeaders;
import io.cachegate.gateway.proxy.ProxyServices;
import io.cachegate.gateway.proxy.ResponseTap;
import io.cachegate.gateway.proxy.RequestIds;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes each complete client request through authentication, validation and route resolution,
 * then hands it to an exchange that answers it. One request per connection is answered at a
 * time; pipelined ones wait in a small bounded queue with reading paused.
 */
final class ProxyRequestHandler extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(ProxyRequestHandler.class);
    private static final int MAX_PIPELINED = 8;
    private static final String DEFAULT_TENANT = "default";

    private final ProxyServices services;
    private final ExactCacheLayer cache;
    private final Dispatcher dispatcher;
    private final ArrayDeque<FullHttpRequest> pipelined = new ArrayDeque<>();
    private ActiveExchange current;

    ProxyRequestHandler(ProxyServices services, ExactCacheLayer cache, Dispatcher dispatcher) {
        this.services = services;
        this.cache = cache;
        this.dispatcher = dispatcher;
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
        long start = System.nanoTime();
        String requestId = RequestIds.accept(request.headers().get(GatewayHeaders.X_REQUEST_ID));
        boolean keepAlive = HttpUtil.isKeepAlive(request) && !services.draining();
        Endpoint endpoint = null;
        try {
            if (request.decoderResult().isFailure()) {
                throw new ApiException(ErrorKind.INVALID_REQUEST, "Malformed HTTP request body");
            }
            String path = path(request.uri());
            endpoint = Endpoint.forPath(path);
            if (endpoint == null) {
                throw new ApiException(ErrorKind.NOT_FOUND, "Unknown path " + path + "; the API lives under /v1");
            }
            String tenant = authenticate(request);
            if (endpoint == Endpoint.MODELS) {
                requireMethod(request, HttpMethod.GET);
                request.release(); // the model list needs nothing of the request
                ModelListExchange models = new ModelListExchange(ctx, services, requestId, keepAlive, start,
                        () -> exchangeDone(ctx));
                current = models;
                models.start();
                return;
            }
            if (endpoint == Endpoint.PASSTHROUGH) {
                ResolvedRoute route = resolve(path, modelIfAny(request), tenant);
                startUpstream(ctx, request, null, tenant, requestId, start, keepAlive, endpoint, route,
                        GatewayHeaders.BYPASS, ResponseTap.NONE);
                return;
            }
            requireMethod(request, HttpMethod.POST);
            OpenAiRequest parsed = services.parser().parse(endpoint, ByteBufUtil.getBytes(request.content()));
            ResolvedRoute route = resolve(path, parsed.model(), tenant);
            Endpoint ep = endpoint;
            CacheRequest cacheRequest = new CacheRequest(ctx, request, parsed, route, tenant, requestId, start, keepAlive,
                    label(route), endpoint.metricName(),
                    (xCache, tap) -> startUpstream(ctx, request, parsed, tenant, requestId, start, keepAlive, ep, route,
                            xCache, tap),
                    () -> exchangeDone(ctx));
            // The cache may finish synchronously (and clear `current`); only a request still in progress keeps its handle.
            ActiveExchange[] stage = new ActiveExchange[1];
            ActiveExchange placeholder = () -> {
                if (stage[0] != null) {
                    stage[0].cancel();
                }
            };
            current = placeholder;
            ActiveExchange handle;
            try {
                handle = cache.handle(cacheRequest);
            } catch (RuntimeException e) {
                // Thrown before any stage took the request (bad X-Cache-Tags, say): it is still ours to
                // release, and the connection must not wait for an exchange that never started.
                if (current == placeholder) {
                    current = null;
                }
                throw e;
            }
            if (current == placeholder) {
                stage[0] = handle;
            }
        } catch (ApiException e) {
            request.release();
            reject(ctx, e.kind(), e.getMessage(), e.param(), requestId, keepAlive, endpoint, start);
        } catch (RuntimeException e) {
            // A bug, not bad input: answer 500 (no stack trace to the client) and keep the connection usable.
            log.warn("request {}: unexpected failure", requestId, e);
            if (current != null) {
                current.cancel(); // the exchange owns the request and releases it when it ends
                ctx.close();
                return;
            }
            if (request.refCnt() > 0) {
                request.release();
            }
            reject(ctx, ErrorKind.INTERNAL, "The gateway failed to handle the request", null, requestId, false,
                    endpoint, start);
        }
    }

    private void reject(ChannelHandlerContext ctx, ErrorKind kind, String message, String param, String requestId,
                        boolean keepAlive, Endpoint endpoint, long start) {
        services.metrics().requestStarted();
        services.metrics().requestFinished("none", endpoint == null ? "unknown" : endpoint.metricName(),
                kind.status(), System.nanoTime() - start);
        ClientResponses.error(ctx, kind, message, param, requestId, keepAlive);
    }

    private String authenticate(FullHttpRequest request) {
        if (!services.policy().authRequired()) {
            return DEFAULT_TENANT;
        }
        String header = request.headers().get(HttpHeaderNames.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw new ApiException(ErrorKind.INVALID_API_KEY,
                    "You didn't provide an API key. Send it as 'Authorization: Bearer <key>'.");
        }
        Optional<Tenant> tenant = services.policy().tenantForApiKey(header.substring(7).trim());
        if (tenant.isEmpty()) {
            throw new ApiException(ErrorKind.INVALID_API_KEY, "Incorrect API key provided.");
        }
        return tenant.get().id();
    }

    private static void requireMethod(FullHttpRequest request, HttpMethod method) {
        if (!request.method().equals(method)) {
            throw new ApiException(ErrorKind.METHOD_NOT_ALLOWED,
                    "Method " + request.method() + " is not allowed here; use " + method);
        }
    }

    private ResolvedRoute resolve(String path, String model, String tenant) {
        return services.routes().resolve(path, model, tenant).orElseThrow(() -> new ApiException(
                ErrorKind.MODEL_NOT_FOUND, "The model '" + model + "' does not exist or no route serves it", "model"));
    }

    /** Pass-through requests are routed by their JSON body's model when they have one. */
    private String modelIfAny(FullHttpRequest request) {
        if (!request.content().isReadable()) {
            return "";
        }
        try {
            var model = services.parser().parseObject(ByteBufUtil.getBytes(request.content())).get("model");
            return model != null && model.isTextual() ? model.textValue() : "";
        } catch (ApiException notJson) {
            return "";
        }
    }

    /** Dispatches the request to a backend (admission, fallback, replica choice), which takes ownership of it. */
    private ActiveExchange startUpstream(ChannelHandlerContext ctx, FullHttpRequest request, OpenAiRequest parsed,
                                         String tenant, String requestId, long start, boolean keepAlive,
                                         Endpoint endpoint, ResolvedRoute route, CharSequence xCache, ResponseTap tap) {
        return dispatcher.dispatch(new DispatchRequest(ctx, request, parsed, route, tenant, requestId, start, keepAlive,
                endpoint.metricName(), label(route), xCache, tap, () -> exchangeDone(ctx), handle -> {
                    if (current == null) {
                        current = handle;
                    }
                }));
    }

    private static String label(ResolvedRoute route) {
        return Integer.toString(route.route().index());
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

    private static String path(String uri) {
        int q = uri.indexOf('?');
        return q < 0 ? uri : uri.substring(0, q);
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
