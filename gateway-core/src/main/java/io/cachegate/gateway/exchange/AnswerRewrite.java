package io.cachegate.gateway.exchange;

import io.cachegate.gateway.api.ErrorBodies;
import io.cachegate.gateway.api.ErrorKind;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * Replaces the body of the connection's next successful answer when a stage armed it: the relay streams the
 * backend's answer as usual, this handler holds its head, drops its body (which a tap of the arming stage has
 * read) and at its end writes the head with the new body. An error answer (any status but 200) passes unchanged
 * and disarms it. Placed before {@link ResponseHeaders} in the pipeline, so the head it holds already carries the
 * exchange's headers. Used by an embeddings batch whose backend answer is merged with cached items.
 */
@ChannelHandler.Sharable
public final class AnswerRewrite extends ChannelOutboundHandlerAdapter {

    public static final AnswerRewrite INSTANCE = new AnswerRewrite();

    private static final AttributeKey<Armed> ARMED = AttributeKey.valueOf("cachegate.answerRewrite");
    /**
     * While a new body is being made off the loop, what the connection's next exchange (a pipelined request)
     * writes waits here, so answers leave in request order. Unbounded in count but not in bytes: a write's
     * promise completes only once it is really written, and a relay reads on only then.
     */
    private static final AttributeKey<ArrayDeque<Held>> HELD = AttributeKey.valueOf("cachegate.answerRewrite.held");

    private record Held(Object msg, ChannelPromise promise) {
    }

    /** What the held answer's body becomes. */
    public interface Rewriter {

        /**
         * The new body, asked once the backend's answer has reached its taps in full (it may still be being made,
         * off the event loop); completes with null when it cannot be made.
         */
        CompletableFuture<byte[]> body();

        /** Why {@link #body()} completed with null: the message of the 502 the client gets instead. */
        String failure();
    }

    private static final class Armed {
        private final Rewriter rewriter;
        private HttpResponse head;

        private Armed(Rewriter rewriter) {
            this.rewriter = rewriter;
        }
    }

    private AnswerRewrite() {
    }

    /** The next answer written on {@code ctx}'s connection gets its body from {@code rewriter}. */
    public static void arm(ChannelHandlerContext ctx, Rewriter rewriter) {
        ctx.channel().attr(ARMED).set(new Armed(rewriter));
    }

    /** The answer will not come (or not from the backend): nothing is held for {@code rewriter} any more. */
    public static void disarm(ChannelHandlerContext ctx, Rewriter rewriter) {
        Armed armed = ctx.channel().attr(ARMED).get();
        if (armed != null && armed.rewriter == rewriter) {
            ctx.channel().attr(ARMED).set(null);
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        ArrayDeque<Held> held = ctx.channel().attr(HELD).get();
        if (held != null) {
            held.add(new Held(msg, promise));
            return;
        }
        Armed armed = ctx.channel().attr(ARMED).get();
        if (armed == null) {
            ctx.write(msg, promise);
            return;
        }
        if (msg instanceof HttpResponse head && armed.head == null) {
            if (msg instanceof FullHttpResponse || head.status().code() != 200) {
                ctx.channel().attr(ARMED).set(null); // an error, or an answer not from the backend: as it is
                ctx.write(msg, promise);
                return;
            }
            armed.head = head;
            promise.setSuccess(); // the relay reads on once a write completes: the held head counts as written
            return;
        }
        if (!(msg instanceof HttpContent content) || armed.head == null) {
            ctx.write(msg, promise);
            return;
        }
        boolean last = content instanceof LastHttpContent;
        ReferenceCountUtil.release(content); // the arming stage's tap has its copy
        if (!last) {
            promise.setSuccess();
            return;
        }
        ctx.channel().attr(ARMED).set(null);
        ctx.channel().attr(HELD).set(new ArrayDeque<>());
        armed.rewriter.body().whenComplete((body, error) -> {
            if (ctx.executor().inEventLoop()) {
                written(ctx, armed, error == null ? body : null, promise);
            } else {
                ctx.executor().execute(() -> written(ctx, armed, error == null ? body : null, promise));
            }
        });
    }

    /** Writes the new body, then what waited behind it. */
    private void written(ChannelHandlerContext ctx, Armed armed, byte[] body, ChannelPromise promise) {
        writeRewritten(ctx, armed, body, promise);
        ArrayDeque<Held> held = ctx.channel().attr(HELD).getAndSet(null);
        Held next;
        while (held != null && (next = held.poll()) != null) {
            try {
                write(ctx, next.msg(), next.promise());
            } catch (Exception e) {
                next.promise().tryFailure(e);
            }
        }
        ctx.flush();
    }

    private static void writeRewritten(ChannelHandlerContext ctx, Armed armed, byte[] rewritten, ChannelPromise promise) {
        byte[] body = rewritten;
        HttpResponse head = armed.head;
        if (body == null) {
            head = new DefaultHttpResponse(head.protocolVersion(), HttpResponseStatus.BAD_GATEWAY, head.headers());
            head.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
            body = ErrorBodies.render(ErrorKind.UPSTREAM_BAD_RESPONSE, armed.rewriter.failure(), null);
        }
        head.headers().remove(HttpHeaderNames.TRANSFER_ENCODING).remove(HttpHeaderNames.CONTENT_ENCODING)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        ctx.write(head);
        // The relay flushed before this body was ready (it is made off the loop): flush it here.
        ctx.writeAndFlush(new DefaultLastHttpContent(Unpooled.wrappedBuffer(body)), promise);
    }
}
