package io.cachegate.gateway.exchange;

import io.cachegate.gateway.api.ErrorBodies;
import io.cachegate.gateway.api.ErrorKind;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.channel.socket.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * Makes the answers the gateway writes itself (OpenAI errors, JSON documents): an exchange's go out through its
 * {@link Answer}; a request refused before it became an exchange (the front door, the admin port) is written here.
 */
public final class ClientResponses {

    private static final long LINGER_MILLIS = 1000;

    private ClientResponses() {
    }

    /** An OpenAI error answer; it asks for the connection to close after it unless {@code keepAlive}. */
    public static FullHttpResponse error(ErrorKind kind, String message, String param, CharSequence requestId,
                                         boolean keepAlive) {
        FullHttpResponse response = json(HttpResponseStatus.valueOf(kind.status()),
                ErrorBodies.render(kind, message, param), requestId, keepAlive);
        if (kind == ErrorKind.METHOD_NOT_ALLOWED) {
            response.headers().set(HttpHeaderNames.ALLOW, "GET, POST");
        }
        return response;
    }

    /** An OpenAI error answer telling the client when to come back ({@code Retry-After}, whole seconds). */
    public static FullHttpResponse retryLater(ErrorKind kind, String message, CharSequence requestId, boolean keepAlive,
                                              long retryAfterSeconds) {
        FullHttpResponse response = json(HttpResponseStatus.valueOf(kind.status()),
                ErrorBodies.render(kind, message, null), requestId, keepAlive);
        response.headers().set(HttpHeaderNames.RETRY_AFTER, Long.toString(Math.max(1, retryAfterSeconds)));
        return response;
    }

    /** A JSON document with the gateway's headers. */
    public static FullHttpResponse document(HttpResponseStatus status, byte[] body, CharSequence requestId,
                                            boolean keepAlive) {
        return json(status, body, requestId, keepAlive);
    }

    /** Writes an OpenAI error answer outside an exchange; closes the connection after it unless {@code keepAlive}. */
    public static ChannelFuture error(ChannelHandlerContext ctx, ErrorKind kind, String message, String param,
                                      CharSequence requestId, boolean keepAlive) {
        return send(ctx, error(kind, message, param, requestId, keepAlive), keepAlive);
    }

    /** As {@link #retryLater(ErrorKind, String, CharSequence, boolean, long)}, outside an exchange, with more headers. */
    public static ChannelFuture retryLater(ChannelHandlerContext ctx, ErrorKind kind, String message,
                                           CharSequence requestId, boolean keepAlive, long retryAfterSeconds,
                                           HttpHeaders extra) {
        FullHttpResponse response = json(HttpResponseStatus.valueOf(kind.status()),
                ErrorBodies.render(kind, message, null), requestId, keepAlive);
        response.headers().add(extra);
        response.headers().set(HttpHeaderNames.RETRY_AFTER, Long.toString(Math.max(1, retryAfterSeconds)));
        return send(ctx, response, keepAlive);
    }

    /**
     * Writes an error, then closes our side and the connection a moment later. Closing at once
     * while the client is still sending would make the kernel reset the connection, and the
     * client could lose the answer before reading it.
     */
    public static void errorThenHalfClose(ChannelHandlerContext ctx, ErrorKind kind, String message) {
        errorThenHalfClose(ctx, kind, message, null, 0, EmptyHttpHeaders.INSTANCE);
    }

    /**
     * As {@link #errorThenHalfClose(ChannelHandlerContext, ErrorKind, String)}, with the request's id (or null),
     * {@code extra} headers and a {@code Retry-After} when above 0.
     */
    public static void errorThenHalfClose(ChannelHandlerContext ctx, ErrorKind kind, String message, String requestId,
                                          long retryAfterSeconds, HttpHeaders extra) {
        FullHttpResponse response = json(HttpResponseStatus.valueOf(kind.status()),
                ErrorBodies.render(kind, message, null), requestId, false);
        response.headers().add(extra);
        if (retryAfterSeconds > 0) {
            response.headers().set(HttpHeaderNames.RETRY_AFTER, Long.toString(retryAfterSeconds));
        }
        ctx.writeAndFlush(response).addListener((ChannelFutureListener) f -> {
            if (f.channel() instanceof SocketChannel socket && f.isSuccess()) {
                socket.shutdownOutput();
                f.channel().eventLoop().schedule(() -> f.channel().close(), LINGER_MILLIS, TimeUnit.MILLISECONDS);
            } else {
                f.channel().close();
            }
        });
    }

    private static FullHttpResponse json(HttpResponseStatus status, byte[] body, CharSequence requestId, boolean keepAlive) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length)
                .set(GatewayHeaders.X_CACHE, GatewayHeaders.BYPASS);
        if (requestId != null) {
            response.headers().set(GatewayHeaders.X_REQUEST_ID, requestId);
        }
        if (!keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        return response;
    }

    private static ChannelFuture send(ChannelHandlerContext ctx, FullHttpResponse response, boolean keepAlive) {
        ChannelFuture future = ctx.writeAndFlush(response);
        if (!keepAlive) {
            future.addListener(ChannelFutureListener.CLOSE);
        }
        return future;
    }
}
