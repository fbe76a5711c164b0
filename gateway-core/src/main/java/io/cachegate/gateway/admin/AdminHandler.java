package io.cachegate.gateway.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.proxy.ClientResponses;
import io.cachegate.gateway.proxy.ProxyServices;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * The admin listener: {@code /health} (live), {@code /ready} (policy loaded, backends reachable),
 * {@code /metrics} (Prometheus), and, behind {@code server.admin_token} when set,
 * {@code /admin/stats} and the status page at {@code /}.
 */
@ChannelHandler.Sharable
final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ProxyServices services;
    private final BackendHealth health;
    private final Optional<byte[]> token;

    AdminHandler(ProxyServices services, BackendHealth health) {
        this.services = services;
        this.health = health;
        this.token = services.policy().server().adminToken().map(t -> t.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) throws Exception {
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        String path = request.uri().split("\\?", 2)[0];
        boolean known = switch (path) {
            case "/health", "/ready", "/metrics", "/admin/stats", "/" -> true;
            default -> false;
        };
        if (!known) {
            ClientResponses.error(ctx, ErrorKind.NOT_FOUND, "Unknown admin path " + path, null, null, keepAlive);
            return;
        }
        if (!request.method().equals(HttpMethod.GET)) {
            ClientResponses.error(ctx, ErrorKind.METHOD_NOT_ALLOWED, "Use GET", null, null, keepAlive);
            return;
        }
        boolean open = path.equals("/health") || path.equals("/ready") || path.equals("/metrics");
        if (!open && !authorised(request)) {
            ClientResponses.error(ctx, ErrorKind.INVALID_API_KEY, "This admin endpoint needs 'Authorization: Bearer <admin token>'",
                    null, null, keepAlive);
            return;
        }
        switch (path) {
            case "/health" -> text(ctx, HttpResponseStatus.OK, "application/json", "{\"status\":\"ok\"}", keepAlive);
            case "/ready" -> ready(ctx, keepAlive);
            case "/metrics" -> text(ctx, HttpResponseStatus.OK, "text/plain; version=0.0.4; charset=utf-8",
                    services.metrics().scrape(), keepAlive);
            case "/admin/stats" -> text(ctx, HttpResponseStatus.OK, "application/json",
                    JSON.writeValueAsString(stats()), keepAlive);
            default -> text(ctx, HttpResponseStatus.OK, "text/html; charset=utf-8", StatusPage.render(stats()), keepAlive);
        }
    }

    private void ready(ChannelHandlerContext ctx, boolean keepAlive) throws Exception {
        boolean ready = health.ready() && !services.draining();
        ObjectNode body = JSON.createObjectNode().put("ready", ready).put("policy", services.policy().source());
        body.set("backends", JSON.valueToTree(health.snapshot()));
        text(ctx, ready ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE, "application/json",
                JSON.writeValueAsString(body), keepAlive);
    }

    private ObjectNode stats() {
        ObjectNode stats = JSON.createObjectNode();
        stats.put("policy", services.policy().source())
                .put("activeConnections", services.metrics().activeConnections())
                .put("inFlight", services.metrics().inFlight())
                .put("draining", services.draining());
        stats.set("backends", JSON.valueToTree(health.snapshot()));
        return stats;
    }

    private boolean authorised(FullHttpRequest request) {
        if (token.isEmpty()) {
            return true;
        }
        String header = request.headers().get(HttpHeaderNames.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return false;
        }
        byte[] given = header.substring(7).trim().getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(given, token.get()); // constant time: no timing oracle on the token
    }

    private static void text(ChannelHandlerContext ctx, HttpResponseStatus status, String contentType, String body,
                             boolean keepAlive) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(bytes));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType).setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
        if (!keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, "close");
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.writeAndFlush(response);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
