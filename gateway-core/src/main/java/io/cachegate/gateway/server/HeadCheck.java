package io.cachegate.gateway.server;

import io.cachegate.config.Policy;
import io.cachegate.gateway.api.ApiException;
import io.cachegate.gateway.api.Endpoint;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.exchange.RequestIds;
import io.cachegate.gateway.quota.HeadPass;
import io.cachegate.gateway.quota.Quotas;
import io.cachegate.gateway.request.HeadRules;
import io.cachegate.gateway.server.tls.ClientCertificates;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;

/**
 * Early refusal: decides what the request head alone decides before any of the body is read or buffered — a body
 * over {@code server.max_body_bytes} by its Content-Length (413), an unknown path (404), a missing or unknown API
 * key (401), a method the endpoint does not take (405), a body that is not JSON (415), in the order the stages would answer them, with the same
 * rules ({@link HeadRules}) under the current policy generation; last the tenant's limits (429 with
 * {@code Retry-After}): a place under {@code max_concurrent} and a request from its bucket, taken here as a
 * {@link HeadPass} ({@link Quotas#atHead}) so that a key at its limit cannot make the gateway hold one more body.
 * Without it a client with no key could make the gateway hold a whole body before being told no. The stages keep
 * their checks. What a head let through learnt (tenant, pass) is left in {@link CheckedHead}.
 *
 * <p>A refused request becomes a {@link Refusal}, answered in order by {@link ProxyRequestHandler}. A refused
 * request with a body ends the connection and nothing more is read from it into memory (each decoded piece is
 * dropped as it arrives); one without a body (a GET) is answered when its end arrives and the connection stays.
 */
final class HeadCheck extends ChannelInboundHandlerAdapter {

    private final RequestPaths paths;
    private final CheckedHead checked;
    /** Set after a refusal that ends the connection: everything after it is dropped. */
    private boolean closing;
    /** The refusal of a request without a body, answered when its end (an empty last content) arrives. */
    private Refusal atEnd;

    HeadCheck(RequestPaths paths, CheckedHead checked) {
        this.paths = paths;
        this.checked = checked;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (atEnd != null) {
            if (msg instanceof HttpContent) {
                ReferenceCountUtil.release(msg);
                if (!(msg instanceof LastHttpContent)) {
                    return;
                }
            }
            Refusal refusal = atEnd;
            atEnd = null;
            ctx.fireChannelRead(refusal);
            if (msg instanceof HttpContent) {
                return;
            }
        }
        if (!(msg instanceof HttpRequest head) || msg instanceof HttpContent || !head.decoderResult().isSuccess()) {
            ctx.fireChannelRead(msg);
            return;
        }
        Refused refused = check(ctx, head);
        if (refused == null) {
            ctx.fireChannelRead(msg);
            return;
        }
        boolean body = hasBody(head);
        String requestId = RequestIds.accept(head.headers().get(GatewayHeaders.X_REQUEST_ID));
        ReferenceCountUtil.release(msg);
        Refusal refusal = new Refusal(refused.kind(), refused.message(), body, requestId, refused.retryAfterSeconds(),
                refused.headers(), refused.tenant(), refused.reason());
        if (body) {
            closing = true;
            ctx.fireChannelRead(refusal);
        } else {
            atEnd = refusal;
        }
    }

    /** Why a head is refused, when to come back (429), more headers to answer with, and what the log says. */
    private record Refused(ErrorKind kind, String message, long retryAfterSeconds, HttpHeaders headers,
                           String tenant, String reason) {

        Refused(ErrorKind kind, String message) {
            this(kind, message, 0, EmptyHttpHeaders.INSTANCE, null, kind.code());
        }
    }

    /**
     * The first refusal the stages would give this head, or null when it may go on; then its tenant and pass are
     * in {@link #checked}. The tenant's limits come last, so a head refused for another reason takes nothing.
     */
    private Refused check(ChannelHandlerContext ctx, HttpRequest head) {
        Policy policy = paths.current().services().policy(); // the generation a request starting now lives under
        long limit = Math.min(Integer.MAX_VALUE, policy.server().maxBodyBytes());
        if (HttpUtil.getContentLength(head, -1L) > limit) {
            // The same answer BodyLimitAggregator gives, here in the request's turn.
            return new Refused(ErrorKind.BODY_TOO_LARGE, "Request body is larger than the limit of " + limit
                    + " bytes");
        }
        Endpoint endpoint;
        String tenant = Exchange.DEFAULT_TENANT;
        try {
            endpoint = HeadRules.endpoint(head.uri());
            if (policy.authRequired()) {
                tenant = HeadRules.caller(policy, ClientCertificates.fingerprint(ctx.channel()),
                        head.headers().get(HttpHeaderNames.AUTHORIZATION)).tenant();
            }
            HeadRules.method(endpoint, head.method(), head.uri(), policy.server());
            HeadRules.contentType(endpoint, head.headers().get(HttpHeaderNames.CONTENT_TYPE));
        } catch (ApiException e) {
            return new Refused(e.kind(), e.getMessage());
        }
        // GET /v1/models is answered before the tenant's limits, as the stages do.
        HeadPass pass = endpoint == Endpoint.MODELS ? null : paths.quotas().atHead(tenant);
        if (pass != null && pass.refusal() != null) {
            return new Refused(ErrorKind.RATE_LIMITED_REQUESTS, pass.refusal(), pass.retryAfterSeconds(),
                    pass.refusalHeaders(), tenant, pass.refusalReason());
        }
        checked.set(tenant, pass);
        return null;
    }

    private static boolean hasBody(HttpRequest head) {
        return HttpUtil.isTransferEncodingChunked(head) || HttpUtil.getContentLength(head, 0L) > 0;
    }
}
