package io.cachegate.gateway.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.cache.exact.PurgeScope;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.admission.AdmissionSnapshot;
import io.cachegate.gateway.cache.semantic.SemanticCache;
import io.cachegate.gateway.dispatch.BackendDispatch;
import io.cachegate.gateway.cache.ModelVersions;
import io.cachegate.gateway.exchange.ClientResponses;
import io.cachegate.gateway.metrics.SavingsReport;
import io.cachegate.gateway.server.ProxyServices;
import io.cachegate.gateway.telemetry.log.AuditLog;
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
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Optional;

/**
 * The admin listener: {@code /health} (live), {@code /ready} (policy loaded, backends reachable: a status only),
 * {@code /metrics} (Prometheus), the status page at {@code /} (its files only), and, behind
 * {@code server.admin_token} when set, {@code /admin/stats}, {@code /admin/series} (the page's charts),
 * {@code POST /admin/purge} and {@code POST /admin/reload}.
 */
@ChannelHandler.Sharable
final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    /** The confidence of the audited rate's bound on the status page when the budget serves on its estimate. */
    private static final double AUDIT_BOUND_DELTA = 0.05;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final AdminView view;
    private final CacheAdmin cache;
    private final ModelVersions versions;
    private final AdminAudit audit;

    AdminHandler(AdminView view, CacheAdmin cache, ModelVersions versions, AuditLog audit) {
        this.view = view;
        this.cache = cache;
        this.versions = versions;
        this.audit = new AdminAudit(audit);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) throws Exception {
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        String path = request.uri().split("\\?", 2)[0];
        Optional<StatusAssets.Asset> asset = StatusAssets.find(path);
        boolean known = asset.isPresent() || switch (path) {
            case "/health", "/ready", "/metrics", "/admin/stats", "/admin/series", "/admin/purge", "/admin/reload",
                 "/admin/kv-index" -> true;
            default -> false;
        };
        if (!known) {
            ClientResponses.error(ctx, ErrorKind.NOT_FOUND, "Unknown admin path " + path, null, null, keepAlive);
            return;
        }
        HttpMethod expected = path.equals("/admin/purge") || path.equals("/admin/reload") ? HttpMethod.POST : HttpMethod.GET;
        boolean mutating = expected == HttpMethod.POST;
        if (!request.method().equals(expected)) {
            if (mutating) {
                audit.refused(ctx, path, ErrorKind.METHOD_NOT_ALLOWED.status(), "method_not_allowed");
            }
            ClientResponses.error(ctx, ErrorKind.METHOD_NOT_ALLOWED, "Use " + expected, null, null, keepAlive);
            return;
        }
        // The status page's files hold no data: what it shows comes from /admin/series and /admin/stats.
        boolean open = path.equals("/health") || path.equals("/ready") || path.equals("/metrics") || asset.isPresent();
        if (!open && !authorised(request)) {
            if (mutating) {
                audit.refused(ctx, path, ErrorKind.INVALID_API_KEY.status(), "unauthorised");
            }
            ClientResponses.error(ctx, ErrorKind.INVALID_API_KEY, "This admin endpoint needs 'Authorization: Bearer <admin token>'",
                    null, null, keepAlive);
            return;
        }
        ProxyServices services = view.services();
        switch (path) {
            case "/health" -> text(ctx, HttpResponseStatus.OK, "application/json", "{\"status\":\"ok\"}", keepAlive);
            case "/ready" -> ready(ctx, keepAlive);
            case "/metrics" -> text(ctx, HttpResponseStatus.OK, "text/plain; version=0.0.4; charset=utf-8",
                    services.metrics().scrape(), keepAlive);
            case "/admin/stats" -> text(ctx, HttpResponseStatus.OK, "application/json",
                    JSON.writeValueAsString(stats()), keepAlive);
            case "/admin/purge" -> purge(ctx, services, request, keepAlive);
            case "/admin/series" -> text(ctx, HttpResponseStatus.OK, "application/json",
                    JSON.writeValueAsString(services.metrics().series().json()), keepAlive);
            case "/admin/reload" -> reload(ctx, request, keepAlive);
            case "/admin/kv-index" -> kvIndex(ctx, request, keepAlive);
            default -> send(ctx, HttpResponseStatus.OK, asset.orElseThrow().contentType(), asset.get().bytes(), keepAlive);
        }
    }

    /**
     * {@code POST /admin/purge} with {@code {"tenant","model_version","tag"}} (any combination), {@code {"user"}}
     * (with tenant and model_version, not tag), or {@code {"all":true}}; read strictly by {@link AdminRequests}.
     */
    private void purge(ChannelHandlerContext ctx, ProxyServices services, FullHttpRequest request, boolean keepAlive) {
        PurgeScope scope;
        try {
            scope = AdminRequests.purge(request.content().toString(StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            audit.refused(ctx, "/admin/purge", ErrorKind.INVALID_REQUEST.status(), "invalid"); // the body may hold a user id
            ClientResponses.error(ctx, ErrorKind.INVALID_REQUEST, "Purge: " + e.getMessage(), null, null, keepAlive);
            return;
        }
        cache.purge(scope).whenComplete((purged, error) -> ctx.executor().execute(() -> {
            if (error != null) {
                audit.purge(ctx, scope, ErrorKind.OVERLOADED.status(), null);
                ClientResponses.error(ctx, ErrorKind.OVERLOADED, "The cache store could not purge: " + error.getMessage(),
                        null, null, keepAlive);
                return;
            }
            services.metrics().cachePurged(purged.exact());
            audit.purge(ctx, scope, HttpResponseStatus.OK.code(), purged);
            // semantic_purged is -1 when the index failed; its leftovers point at purged entries and never hit.
            String body = "{\"purged\":" + purged.exact()
                    + (cache.semantic().isPresent() ? ",\"semantic_purged\":" + purged.semantic() : "") + "}";
            text(ctx, HttpResponseStatus.OK, "application/json", body, keepAlive);
        }));
    }

    /** {@code POST /admin/reload}: the policy file read, validated in full and swapped in, or refused. */
    private void reload(ChannelHandlerContext ctx, FullHttpRequest request, boolean keepAlive) {
        try {
            AdminRequests.reload(request.content().toString(StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            audit.refused(ctx, "/admin/reload", ErrorKind.INVALID_REQUEST.status(), "invalid");
            ClientResponses.error(ctx, ErrorKind.INVALID_REQUEST, "Reload: " + e.getMessage(), null, null, keepAlive);
            return;
        }
        view.reload().whenComplete((outcome, error) -> ctx.executor().execute(() -> {
            if (error != null) {
                audit.reload(ctx, ErrorKind.INTERNAL.status(), null);
                ClientResponses.error(ctx, ErrorKind.INTERNAL, "The reload failed: " + error.getMessage(), null, null,
                        keepAlive);
                return;
            }
            HttpResponseStatus status = switch (outcome.outcome()) {
                case "rejected" -> HttpResponseStatus.UNPROCESSABLE_ENTITY;
                case "unavailable" -> HttpResponseStatus.CONFLICT;
                // Not a success: the outcome is not known yet (it will be logged and counted).
                case "running" -> HttpResponseStatus.SERVICE_UNAVAILABLE;
                default -> HttpResponseStatus.OK;
            };
            audit.reload(ctx, status.code(), outcome);
            try {
                text(ctx, status, "application/json", JSON.writeValueAsString(outcome), keepAlive);
            } catch (IOException e) {
                ClientResponses.error(ctx, ErrorKind.INTERNAL, "The reload outcome could not be written", null, null,
                        keepAlive);
            }
        }));
    }

    private void ready(ChannelHandlerContext ctx, boolean keepAlive) throws Exception {
        BackendHealth health = view.health();
        // The semantic cache's model must be warm too: a cold one would queue the first requests behind warm-up.
        boolean semanticReady = cache.semantic().map(SemanticCache::warm).orElse(true);
        boolean ready = health.ready() && semanticReady && !view.draining();
        // Open to probes without a token, so a status only: the policy path and backend URLs are in /admin/stats.
        ObjectNode body = JSON.createObjectNode().put("ready", ready);
        cache.semantic().ifPresent(semantic -> body.put("semanticWarm", semanticReady));
        text(ctx, ready ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE, "application/json",
                JSON.writeValueAsString(body), keepAlive);
    }

    private ObjectNode stats() {
        ProxyServices services = view.services();
        BackendHealth health = view.health();
        ObjectNode stats = JSON.createObjectNode();
        stats.put("policy", services.policy().source())
                .put("activeConnections", services.metrics().activeConnections())
                .put("inFlight", services.metrics().inFlight())
                .put("draining", view.draining());
        stats.set("backends", JSON.valueToTree(health.snapshot()));
        stats.set("modelVersions", JSON.valueToTree(versions.snapshot(services.policy().backends())));
        ObjectNode replicas = stats.putObject("replicas");
        ObjectNode admission = stats.putObject("admission");
        for (BackendDispatch backend : health.backends().all()) {
            replicas.set(backend.name(), JSON.valueToTree(backend.replicas().status()));
            backend.admission().ifPresent(a -> admission.set(backend.name(), admission(a.snapshot())));
        }
        cache.semantic().ifPresent(semantic -> {
            ObjectNode node = stats.putObject("semantic")
                    .put("warm", semantic.warm())
                    .put("pendingWrites", semantic.pendingWrites())
                    .put("indexEntries", semantic.indexSizeLastKnown())
                    .put("maxErrorRate", semantic.maxErrorRate())
                    .put("budgetDelta", semantic.budgetDelta());
            node.set("verdicts", JSON.valueToTree(services.metrics().audits().snapshot(semantic.maxErrorRate(),
                    semantic.budgetDelta() > 0 ? semantic.budgetDelta() : AUDIT_BOUND_DELTA)));
            // what the class watch did, beside each route's audited rate and bound: the status page shows both
            node.putObject("watch").set("byRoute", JSON.valueToTree(semantic.watchByRoute()));
            semantic.sharing().ifPresent(sharing -> node.set("sharedEvidence", JSON.valueToTree(sharing)));
        });
        stats.set("embeddings", JSON.valueToTree(services.metrics().embeddingItems().snapshot()));
        stats.set("saved", JSON.valueToTree(SavingsReport.of(services.metrics().registry())));
        return stats;
    }

    /** By hand: the snapshot holds durations, which Jackson does not write without a module. */
    private static ObjectNode admission(AdmissionSnapshot snapshot) {
        ObjectNode node = JSON.createObjectNode()
                .put("overloaded", snapshot.overloaded())
                .put("drainRateTokensPerSecond", Math.round(snapshot.drainRate()))
                .put("dispatched", snapshot.dispatched())
                .put("inflightRequests", snapshot.inflightRequests())
                .put("inflightTokens", snapshot.inflightTokens());
        ObjectNode rejections = node.putObject("rejections");
        snapshot.rejections().forEach((reason, count) -> rejections.put(reason.tag(), count));
        ObjectNode classes = node.putObject("classes");
        for (AdmissionSnapshot.ClassStats c : snapshot.classes()) {
            classes.putObject(c.name()).put("queued", c.queued()).put("queuedTokens", c.queuedTokens())
                    .put("inflight", c.inflight())
                    .put("oldestWaitMillis", c.oldestWait().toMillis()).put("paused", c.paused());
        }
        return node;
    }

    private boolean authorised(FullHttpRequest request) {
        Optional<byte[]> token = view.services().policy().server().adminToken()
                .map(t -> t.getBytes(StandardCharsets.UTF_8));
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

    /**
     * {@code GET /admin/kv-index?backend=NAME}: this gateway's KV index of a kv_aware backend, msgpack ({@code
     * io.cachegate.kv.KvSnapshot}), for a sibling whose replicas' replay no longer holds what it missed.
     */
    private void kvIndex(ChannelHandlerContext ctx, FullHttpRequest request, boolean keepAlive) {
        List<String> names = new QueryStringDecoder(request.uri()).parameters().getOrDefault("backend", List.of());
        Optional<byte[]> snapshot = names.size() == 1 ? view.health().backends().kv().snapshot(names.get(0))
                : Optional.empty();
        if (snapshot.isEmpty()) {
            ClientResponses.error(ctx, ErrorKind.NOT_FOUND, "No KV index: give ?backend=NAME of a kv_aware backend "
                    + "with kv_events", null, null, keepAlive);
            return;
        }
        send(ctx, HttpResponseStatus.OK, "application/x-msgpack", snapshot.get(), keepAlive);
    }

    private static void text(ChannelHandlerContext ctx, HttpResponseStatus status, String contentType, String body,
                             boolean keepAlive) {
        send(ctx, status, contentType, body.getBytes(StandardCharsets.UTF_8), keepAlive);
    }

    private static void send(ChannelHandlerContext ctx, HttpResponseStatus status, String contentType, byte[] bytes,
                             boolean keepAlive) {
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
