package io.cachegate.gateway.exchange;

import io.cachegate.gateway.api.ErrorBodies;
import io.cachegate.gateway.api.ErrorKind;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.CompletableFuture;

/**
 * Replaces the body of an exchange's successful answer ({@link Answer#rewrite}): the relay streams the backend's
 * answer as usual, this decorator holds its head, drops its body (which a tap of the arming stage has read) and at
 * its end writes the head with the new body. An error answer (any status but 200) or a whole answer (not from the
 * backend) passes unchanged. While the new body is being made the connection's next exchange does not start
 * ({@link Answer#whenSent}), so pipelined answers leave in request order. Used by an embeddings batch whose backend
 * answer is merged with cached items.
 */
public final class BodyRewrite implements AnswerDecorator {

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

    private final Answer answer;
    private final Rewriter rewriter;
    private HttpResponse head;
    /** Passes everything on: the answer was not the backend's success, or its body is written already. */
    private boolean off;

    BodyRewrite(Answer answer, Rewriter rewriter) {
        this.answer = answer;
        this.rewriter = rewriter;
    }

    @Override
    public void write(HttpObject part, ChannelPromise promise, Next next) {
        if (off) {
            next.write(part, promise);
            return;
        }
        if (part instanceof HttpResponse response && head == null) {
            if (part instanceof FullHttpResponse || response.status().code() != 200) {
                off = true; // an error, or an answer not from the backend: as it is
                next.write(part, promise);
                return;
            }
            head = response;
            answer.hold();
            promise.setSuccess(); // the relay reads on once a write completes: the held head counts as written
            return;
        }
        if (!(part instanceof HttpContent) || head == null) {
            next.write(part, promise);
            return;
        }
        boolean last = part instanceof LastHttpContent;
        ReferenceCountUtil.release(part); // the arming stage's tap has its copy
        if (!last) {
            promise.setSuccess();
            return;
        }
        off = true;
        rewriter.body().whenComplete((body, error) -> answer.onLoop(() -> written(error == null ? body : null,
                promise, next)));
    }

    /** The answer will not complete (the backend failed mid-answer, the client left): nothing waits for a body. */
    void abort() {
        if (!off && head != null) {
            off = true;
            answer.sent();
        }
    }

    /** Writes the head with the new body (a 502 when there is none), then lets the connection's next exchange go. */
    private void written(byte[] rewritten, ChannelPromise promise, Next next) {
        byte[] body = rewritten;
        HttpResponse out = head;
        if (body == null) {
            out = new DefaultHttpResponse(head.protocolVersion(), HttpResponseStatus.BAD_GATEWAY, head.headers());
            out.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
            body = ErrorBodies.render(ErrorKind.UPSTREAM_BAD_RESPONSE, rewriter.failure(), null);
        }
        out.headers().remove(HttpHeaderNames.TRANSFER_ENCODING).remove(HttpHeaderNames.CONTENT_ENCODING)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        next.write(out, answer.newPromise());
        next.write(new DefaultLastHttpContent(Unpooled.wrappedBuffer(body)), promise);
        answer.flush(); // the writer flushed before this body was ready (it is made off the loop)
        answer.sent();
    }
}
