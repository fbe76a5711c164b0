package io.cachegate.gateway.server;

import io.cachegate.config.ServerSettings;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.exchange.ClientResponses;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The proxy listener's read timeouts, one timer per connection on its event loop: a request head must be whole
 * within {@code server.header_timeout} of its first byte, its body within {@code server.body_timeout} of the head,
 * and a connection with no request in progress is closed after {@code server.idle_timeout}. Once a request is
 * whole no timer runs until its answer has been written, so a long streamed answer is never cut. A request cut
 * off before it was answered gets 408 {@code request_timeout}; an idle connection is closed without a word.
 *
 * <p>The timer is lazy, as Netty's {@code IdleStateHandler} is: a phase change only moves a deadline, and the one
 * pending check, never more than the shortest of the three timeouts away, re-arms itself for what is left when it
 * finds the deadline moved. A keep-alive request then schedules and cancels no task at all (it took three of each,
 * ~2% of a cached answer's CPU); an idle connection is checked every {@code min(timeouts)} instead of once.
 *
 * <p>Sits after the HTTP codec, where it sees request heads and ends and the answers going out; {@link #bytes()}
 * is its companion before the codec, which sees the first byte of a head.
 */
final class ReadTimeouts extends ChannelDuplexHandler {

    private enum Phase { IDLE, HEAD, BODY, ANSWERING, CLOSED }

    private static final long NONE = Long.MAX_VALUE;

    private final ServerSettings.Connections limits;
    private final GatewayMetrics metrics;
    /** The longest a pending check waits: a later phase's deadline is then never before it. */
    private final long checkEveryNanos;
    private ChannelHandlerContext ctx;
    /** The connection's idle mark ({@link IdleConnections}), kept: set on every request. */
    private AtomicLong idleMark;
    private Phase phase = Phase.IDLE;
    /** Requests whole but not yet answered in full (pipelined ones count too). */
    private int unanswered;
    /** When the current phase times out, on the event loop's ticker; {@link #NONE} while answering. */
    private long deadline = NONE;
    /** The pending check, due at most {@link #checkEveryNanos} after it was armed: never after any later deadline. */
    private ScheduledFuture<?> timer;
    private final Runnable checkTask = this::check;

    ReadTimeouts(ServerSettings.Connections limits, GatewayMetrics metrics) {
        this.limits = limits;
        this.metrics = metrics;
        this.checkEveryNanos = Math.min(limits.headerTimeout().toNanos(),
                Math.min(limits.bodyTimeout().toNanos(), limits.idleTimeout().toNanos()));
    }

    /** The companion placed before the codec: marks the first byte of a request head. */
    ChannelInboundHandlerAdapter bytes() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext c, Object msg) {
                if (msg instanceof ByteBuf buf && buf.isReadable() && phase == Phase.IDLE && unanswered == 0) {
                    enter(Phase.HEAD, limits.headerTimeout());
                }
                c.fireChannelRead(msg);
            }
        };
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.idleMark = IdleConnections.mark(ctx.channel());
        if (ctx.channel().isActive()) {
            enter(Phase.IDLE, limits.idleTimeout());
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        enter(Phase.IDLE, limits.idleTimeout());
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (phase == Phase.CLOSED) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpRequest && unanswered == 0) {
            enter(Phase.BODY, limits.bodyTimeout());
        }
        if (msg instanceof LastHttpContent) {
            unanswered++;
            enter(Phase.ANSWERING, null);
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof LastHttpContent && !interim(msg)) {
            ChannelPromise p = promise.unvoid();
            p.addListener((ChannelFutureListener) f -> answered());
            ctx.write(msg, p);
            return;
        }
        ctx.write(msg, promise);
    }

    /** A 1xx answer (100 Continue) ends no request. */
    private static boolean interim(Object msg) {
        return msg instanceof HttpResponse response && response.status().codeClass() == HttpStatusClass.INFORMATIONAL;
    }

    /** An answer was written in full: with none left to write the connection is idle again. */
    private void answered() {
        if (unanswered > 0) {
            unanswered--;
        }
        if (unanswered == 0 && phase == Phase.ANSWERING) {
            enter(Phase.IDLE, limits.idleTimeout());
        }
    }

    private void enter(Phase next, Duration timeout) {
        Phase previous = phase;
        phase = next;
        if (ctx != null) {
            if (next == Phase.IDLE) {
                IdleConnections.idle(idleMark);
            } else if (previous == Phase.IDLE) {
                IdleConnections.busy(idleMark); // once a request, not at each of its phases
            }
        }
        if (timeout == null || ctx == null) {
            deadline = NONE;
            return;
        }
        long now = ctx.executor().ticker().nanoTime();
        deadline = now + timeout.toNanos();
        if (timer == null) {
            arm(now);
        }
    }

    private void arm(long now) {
        cancel();
        timer = ctx.executor().schedule(checkTask, Math.min(deadline - now, checkEveryNanos), TimeUnit.NANOSECONDS);
    }

    /** The pending check: expires the phase when its deadline has passed, else waits again for what is left. */
    private void check() {
        timer = null;
        if (phase == Phase.CLOSED || deadline == NONE || !ctx.channel().isActive()) {
            return;  // answering: the next phase arms a check again
        }
        long now = ctx.executor().ticker().nanoTime();
        if (deadline - now > 0) {
            arm(now);
        } else {
            expire();
        }
    }

    private void expire() {
        Phase when = phase;
        phase = Phase.CLOSED;
        metrics.connectionTimedOut(switch (when) {
            case HEAD -> "header";
            case BODY -> "body";
            default -> "idle";
        });
        switch (when) {
            case HEAD -> ClientResponses.errorThenHalfClose(ctx, ErrorKind.REQUEST_TIMEOUT,
                    "The request head did not arrive within " + limits.headerTimeout().toMillis() + " ms");
            case BODY -> ClientResponses.errorThenHalfClose(ctx, ErrorKind.REQUEST_TIMEOUT,
                    "The request body did not arrive within " + limits.bodyTimeout().toMillis() + " ms");
            default -> ctx.close();
        }
    }

    private void cancel() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancel();
        phase = Phase.CLOSED;
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancel(); // the idle mark is left alone: on a switch to HTTP/2, Http2IdleTimeout (added first) owns it now
    }
}
