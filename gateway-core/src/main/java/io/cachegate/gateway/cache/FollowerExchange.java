package io.cachegate.gateway.cache;

import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.gateway.proxy.GatewayHeaders;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A request coalesced onto an identical one in flight: it relays the leader's answer from the
 * start, one piece per completed write (so a slow client only slows itself). If the leader fails
 * before its head, or the head does not come within the wait bound, this request makes its own
 * call instead: a follower is never failed because its leader was.
 */
final class FollowerExchange implements SharedAnswer.Subscriber {

    /** What to do when the shared answer cannot serve this request: {@code coalesce} says whether to try to join again. */
    interface Fallback {
        void run(boolean coalesce);
    }

    private final ChannelHandlerContext ctx;
    private final SharedAnswer answer;
    private final String requestId;
    private final boolean keepAlive;
    private final long startNanos;
    private final String route;
    private final String endpoint;
    private final GatewayMetrics metrics;
    private final Fallback fallback;
    private final Runnable onDone;
    private ScheduledFuture<?> headTimer;
    private boolean headSent;
    private boolean writing;
    private boolean done;
    private int next;
    private int status;

    FollowerExchange(ChannelHandlerContext ctx, SharedAnswer answer, String requestId, boolean keepAlive, long startNanos,
                     String route, String endpoint, GatewayMetrics metrics, Fallback fallback, Runnable onDone) {
        this.ctx = ctx;
        this.answer = answer;
        this.requestId = requestId;
        this.keepAlive = keepAlive;
        this.startNanos = startNanos;
        this.route = route;
        this.endpoint = endpoint;
        this.metrics = metrics;
        this.fallback = fallback;
        this.onDone = onDone;
    }

    /** Attaches to the shared answer; falls back at once if it can no longer be shared. */
    void start(long maxHeadWaitNanos) {
        if (!answer.subscribe(this, ctx.executor())) {
            // Ended badly or overflowed: joining again could find the same answer (an overflowed one
            // stays in flight) and loop, so make a call of our own.
            fallback.run(false);
            return;
        }
        metrics.requestStarted();
        metrics.coalesced();
        headTimer = ctx.executor().schedule(this::headTimedOut, maxHeadWaitNanos, TimeUnit.NANOSECONDS);
        wake();
    }

    @Override
    public void wake() {
        if (done) {
            return;
        }
        SharedAnswer.State state = answer.state();
        if (!headSent) {
            if (state == SharedAnswer.State.WAITING) {
                return;
            }
            if (state == SharedAnswer.State.ABORTED) {
                giveUp(true); // the leader failed before answering: try again, one of the waiting requests will lead
                return;
            }
            sendHead();
        }
        pump();
    }

    /** The client went away. */
    void cancel() {
        finish(499);
    }

    private void sendHead() {
        headSent = true;
        headTimer.cancel(false);
        status = answer.status().code();
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, answer.status());
        head.headers().set(answer.headers());
        StringBuilder timing = new StringBuilder(32);
        GatewayHeaders.appendTiming(timing, "total", System.nanoTime() - startNanos);
        head.headers().set(GatewayHeaders.X_REQUEST_ID, requestId)
                .set(GatewayHeaders.X_CACHE, GatewayHeaders.MISS)
                .set(GatewayHeaders.X_CACHE_COALESCED, "1")
                .set(GatewayHeaders.SERVER_TIMING, timing);
        if (keepAlive) {
            head.headers().remove(HttpHeaderNames.CONNECTION);
        } else {
            head.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        ctx.write(head);
    }

    private void pump() {
        if (writing || done) {
            return;
        }
        if (next < answer.pieceCount()) {
            writing = true;
            ctx.writeAndFlush(new DefaultHttpContent(Unpooled.wrappedBuffer(answer.piece(next++))))
                    .addListener((ChannelFutureListener) f -> {
                        writing = false;
                        if (f.isSuccess()) {
                            pump();
                        } else {
                            finish(499);
                        }
                    });
            return;
        }
        SharedAnswer.State state = answer.state();
        if (state == SharedAnswer.State.COMPLETE) {
            finish(status); // counted before the last bytes leave, as ProxyExchange does
            ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT).addListener((ChannelFutureListener) f -> {
                if (!f.isSuccess() || !keepAlive) {
                    f.channel().close();
                }
            });
        } else if (state == SharedAnswer.State.ABORTED) {
            ctx.close(); // mid-answer: a truncated answer must not look complete
            finish(status);
        }
    }

    private void headTimedOut() {
        if (!headSent && !done) {
            giveUp(false);
        }
    }

    private void giveUp(boolean coalesceAgain) {
        done = true;
        answer.unsubscribe(this);
        if (headTimer != null) {
            headTimer.cancel(false);
        }
        metrics.requestAbandoned();
        fallback.run(coalesceAgain);
    }

    private void finish(int finalStatus) {
        if (done) {
            return;
        }
        done = true;
        answer.unsubscribe(this);
        if (headTimer != null) {
            headTimer.cancel(false);
        }
        metrics.requestFinished(route, endpoint, finalStatus, System.nanoTime() - startNanos);
        onDone.run();
    }
}
