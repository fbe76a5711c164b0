package io.cachegate.gateway.exchange;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.util.AttributeKey;

/**
 * Adds the headers stages set on an exchange ({@link Exchange#responseHeader}) to the head of whatever answer it
 * gets: a hit, a relayed answer or stream, an error. Every writer goes through the pipeline, so this one handler
 * covers them all and no writer has to know. A header set here replaces the backend's of that name (the backend's
 * {@code x-ratelimit-*} never arrive: {@code ForwardedHeaders} drops them).
 */
@ChannelHandler.Sharable
public final class ResponseHeaders extends ChannelOutboundHandlerAdapter {

    public static final ResponseHeaders INSTANCE = new ResponseHeaders();

    /** The headers of the connection's current exchange, taken by its first answer head. */
    static final AttributeKey<HttpHeaders> PENDING = AttributeKey.valueOf("cachegate.responseHeaders");

    private ResponseHeaders() {
    }

    static void add(ChannelHandlerContext ctx, CharSequence name, Object value) {
        HttpHeaders headers = ctx.channel().attr(PENDING).get();
        if (headers == null) {
            headers = new DefaultHttpHeaders();
            ctx.channel().attr(PENDING).set(headers);
        }
        headers.set(name, value);
    }

    static void clear(ChannelHandlerContext ctx) {
        ctx.channel().attr(PENDING).set(null);
    }

    /** The headers set on the connection's current exchange and not yet written; null when none. */
    public static HttpHeaders pending(ChannelHandlerContext ctx) {
        return ctx.channel().attr(PENDING).get();
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (msg instanceof HttpResponse response) {
            HttpHeaders extra = ctx.channel().attr(PENDING).getAndSet(null);
            if (extra != null) {
                response.headers().setAll(extra); // set(HttpHeaders) would clear the others first
            }
        }
        ctx.write(msg, promise);
    }
}
