package io.cachegate.gateway.server;

import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.exchange.ClientResponses;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpUtil;

/**
 * Collects a request body up to {@code server.max_body_bytes}. A larger body is refused with an
 * OpenAI 413 as soon as it is known to be too large (at once when Content-Length says so, else when
 * the limit is crossed); the connection is then closed instead of reading the rest.
 */
final class BodyLimitAggregator extends HttpObjectAggregator {

    private final long maxBytes;

    BodyLimitAggregator(int maxBytes) {
        super(maxBytes);
        this.maxBytes = maxBytes;
    }

    /**
     * A request that expects 100-continue but announces a body over the limit gets our OpenAI 413
     * (through {@link #handleOversizedMessage}) instead of Netty's bare one.
     */
    @Override
    protected Object newContinueResponse(HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
        if (HttpUtil.is100ContinueExpected(start) && HttpUtil.getContentLength(start, -1L) > maxContentLength) {
            return null;
        }
        return super.newContinueResponse(start, maxContentLength, pipeline);
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        // The rest of the body is discarded, never buffered, while the answer reaches the client.
        ClientResponses.errorThenHalfClose(ctx, ErrorKind.BODY_TOO_LARGE,
                "Request body is larger than the limit of " + maxBytes + " bytes");
    }
}
