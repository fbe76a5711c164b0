package io.cachegate.simulator;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;

/** Writing complete (non-streamed) responses, with keep-alive handled in one place. */
final class HttpResponses {

    static final AsciiString APPLICATION_JSON = AsciiString.cached("application/json");
    static final AsciiString EVENT_STREAM = AsciiString.cached("text/event-stream; charset=utf-8");

    private HttpResponses() {
    }

    static ChannelFuture sendJson(ChannelHandlerContext ctx, HttpResponseStatus status, CharSequence json,
                                  boolean keepAlive) {
        return send(ctx, json(ctx, status, json), keepAlive);
    }

    static ChannelFuture sendText(ChannelHandlerContext ctx, HttpResponseStatus status, CharSequence contentType,
                                  CharSequence text, boolean keepAlive) {
        ByteBuf content = ByteBufUtil.writeUtf8(ctx.alloc(), text);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        return send(ctx, response, keepAlive);
    }

    static ChannelFuture sendEmpty(ChannelHandlerContext ctx, HttpResponseStatus status, boolean keepAlive) {
        return send(ctx, new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status), keepAlive);
    }

    static ChannelFuture sendError(ChannelHandlerContext ctx, ApiError error, String message, String param,
                                   boolean keepAlive) {
        return send(ctx, error(ctx, error, message, param), keepAlive);
    }

    static FullHttpResponse error(ChannelHandlerContext ctx, ApiError error, String message, String param) {
        return json(ctx, error.status, error.body(message, param));
    }

    static FullHttpResponse json(ChannelHandlerContext ctx, HttpResponseStatus status, CharSequence json) {
        ByteBuf content = ByteBufUtil.writeUtf8(ctx.alloc(), json);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, APPLICATION_JSON);
        return response;
    }

    static ChannelFuture send(ChannelHandlerContext ctx, FullHttpResponse response, boolean keepAlive) {
        HttpUtil.setContentLength(response, response.content().readableBytes());
        if (!keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        ChannelFuture written = ctx.writeAndFlush(response);
        if (!keepAlive) {
            written.addListener(ChannelFutureListener.CLOSE);
        }
        return written;
    }
}
