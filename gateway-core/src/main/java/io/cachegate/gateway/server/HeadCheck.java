package io.cachegate.gateway.server;

import io.cachegate.config.Policy;
import io.cachegate.gateway.api.ApiException;
import io.cachegate.gateway.api.Endpoint;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.exchange.RequestIds;
import io.cachegate.gateway.request.HeadRules;
import io.cachegate.gateway.server.tls.ClientCertificates;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;

/**
 * Early refusal: decides what the request head alone decides before any of the body is read or buffered — a body
 * over {@code server.max_body_bytes} by its Content-Length (413), an unknown path (404), a missing or unknown API
 * key (401), a method the endpoint does not take (405), a body that is not JSON (415), in the order the stages would answer them, with the same
 * rules ({@link HeadRules}) under the current policy generation. Without it a client with no key could make the
 * gateway hold a whole body before being told no. The stages keep their checks.
 *
 * <p>A refused request becomes a {@link Refusal}, answered in order by {@link ProxyRequestHandler}. A refused
 * request with a body ends the connection and nothing more is read from it into memory (each decoded piece is
 * dropped as it arrives); one without a body (a GET) is answered when its end arrives and the connection stays.
 */
final class HeadCheck extends ChannelInboundHandlerAdapter {

    private final RequestPaths paths;
    /** Set after a refusal that ends the connection: everything after it is dropped. */
    private boolean closing;
    /** The refusal of a request without a body, answered when its end (an empty last content) arrives. */
    private Refusal atEnd;

    HeadCheck(RequestPaths paths) {
        this.paths = paths;
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
        ApiException refused = check(ctx, head);
        if (refused == null) {
            ctx.fireChannelRead(msg);
            return;
        }
        boolean body = hasBody(head);
        String requestId = RequestIds.accept(head.headers().get(GatewayHeaders.X_REQUEST_ID));
        ReferenceCountUtil.release(msg);
        if (body) {
            closing = true;
            ctx.fireChannelRead(new Refusal(refused.kind(), refused.getMessage(), true, requestId));
        } else {
            atEnd = new Refusal(refused.kind(), refused.getMessage(), false, requestId);
        }
    }

    /** The first refusal the stages would give this head, or null when it may go on. */
    private ApiException check(ChannelHandlerContext ctx, HttpRequest head) {
        Policy policy = paths.current().services().policy(); // the generation a request starting now lives under
        long limit = Math.min(Integer.MAX_VALUE, policy.server().maxBodyBytes());
        if (HttpUtil.getContentLength(head, -1L) > limit) {
            // The same answer BodyLimitAggregator gives, here in the request's turn.
            return new ApiException(ErrorKind.BODY_TOO_LARGE, "Request body is larger than the limit of " + limit
                    + " bytes");
        }
        try {
            Endpoint endpoint = HeadRules.endpoint(head.uri());
            if (policy.authRequired()) {
                HeadRules.caller(policy, ClientCertificates.fingerprint(ctx.channel()),
                        head.headers().get(HttpHeaderNames.AUTHORIZATION));
            }
            HeadRules.method(endpoint, head.method(), head.uri(), policy.server());
            HeadRules.contentType(endpoint, head.headers().get(HttpHeaderNames.CONTENT_TYPE));
            return null;
        } catch (ApiException e) {
            return e;
        }
    }

    private static boolean hasBody(HttpRequest head) {
        return HttpUtil.isTransferEncodingChunked(head) || HttpUtil.getContentLength(head, 0L) > 0;
    }
}
