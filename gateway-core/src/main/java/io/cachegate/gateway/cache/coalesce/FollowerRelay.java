package io.cachegate.gateway.cache.coalesce;

import io.cachegate.gateway.exchange.Answer;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
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
 * A request coalesced onto an identical one in flight: it relays the leader's answer from the start through its
 * own exchange's answer, one piece per completed write (so a slow client only slows itself). If the leader fails
 * before its head, or the head does not come within the wait bound, this request makes its own call instead: a
 * follower is never failed because its leader was.
 */
final class FollowerRelay implements SharedAnswer.Subscriber {

    /** What to do when the shared answer cannot serve this request: {@code coalesce} says whether to try to join again. */
    interface GiveUp {
        void run(boolean coalesce);
    }

    private final Exchange x;
    private final ChannelHandlerContext ctx;
    private final SharedAnswer answer;
    private final GiveUp giveUp;
    private ScheduledFuture<?> headTimer;
    private boolean headSent;
    private boolean writing;
    private boolean done;
    private int next;
    private int status;

    FollowerRelay(Exchange x, SharedAnswer answer, GiveUp giveUp) {
        this.x = x;
        this.ctx = x.ctx();
        this.answer = answer;
        this.giveUp = giveUp;
    }

    /** Attaches to the shared answer; falls back at once if it can no longer be shared. */
    void start(long maxHeadWaitNanos) {
        if (!answer.subscribe(this, ctx.executor())) {
            // Ended badly or overflowed: joining again could find the same answer (an overflowed one
            // stays in flight) and loop, so make a call of our own.
            giveUp.run(false);
            return;
        }
        x.onCancel(this::cancel);
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
        if (stop()) {
            x.answer().abort();
            x.finish(499);
        }
    }

    private void sendHead() {
        headSent = true;
        headTimer.cancel(false);
        status = answer.status().code();
        x.record().coalesced(answer.leaderRequestId(), answer.leaderSpan());
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, answer.status());
        head.headers().set(answer.headers());
        StringBuilder timing = new StringBuilder(32);
        GatewayHeaders.appendTiming(timing, "total", x.elapsedNanos());
        head.headers().set(GatewayHeaders.X_REQUEST_ID, x.requestId())
                .set(GatewayHeaders.X_CACHE, GatewayHeaders.MISS)
                .set(GatewayHeaders.X_CACHE_ORIGIN_REQUEST_ID, answer.leaderRequestId())
                .set(GatewayHeaders.SERVER_TIMING, timing);
        x.responseHeader(GatewayHeaders.X_CACHE_COALESCED, "1");
        if (x.keepAlive()) {
            head.headers().remove(HttpHeaderNames.CONNECTION);
        } else {
            head.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        x.answer().head(head, Answer.Source.COALESCED);
    }

    private void pump() {
        if (writing || done) {
            return;
        }
        if (next < answer.pieceCount()) {
            writing = true;
            byte[] piece = answer.piece(next++);
            ChannelFuture written = x.answer().content(new DefaultHttpContent(Unpooled.wrappedBuffer(piece)));
            x.answer().flush();
            written.addListener((ChannelFutureListener) f -> {
                writing = false;
                if (f.isSuccess()) {
                    pump();
                } else if (stop()) {
                    x.answer().abort();
                    x.finish(499);
                }
            });
            return;
        }
        SharedAnswer.State state = answer.state();
        if (state == SharedAnswer.State.COMPLETE) {
            if (stop()) {
                x.answer().end(LastHttpContent.EMPTY_LAST_CONTENT); // which finishes the exchange
            }
        } else if (state == SharedAnswer.State.ABORTED && stop()) {
            x.answer().abort();
            ctx.close(); // mid-answer: a truncated answer must not look complete
            x.finish(status);
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
        x.onCancel(null);
        giveUp.run(coalesceAgain);
    }

    /** Lets go of the shared answer; false when that was done before (the follower is over already). */
    private boolean stop() {
        if (done) {
            return false;
        }
        done = true;
        answer.unsubscribe(this);
        if (headTimer != null) {
            headTimer.cancel(false);
        }
        return true;
    }
}
