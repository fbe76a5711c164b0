package io.cachegate.gateway.upstream;

import io.cachegate.config.Ticker;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.pool.ChannelPool;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.ConnectException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One attempt to send a request to one backend URL and relay its answer to an
 * {@link UpstreamListener}. Runs entirely on one event loop (the client's), so it holds no locks.
 * It owns the timeouts: connect (in the bootstrap), first byte, idle between chunks (counted only
 * while a read is pending, so a slow client is not blamed on the backend) and total.
 */
public final class UpstreamCall {

    private enum State { ACQUIRING, WAITING_HEAD, STREAMING, DONE }

    private final EventLoop loop;
    private final ChannelPool pool;
    private final UpstreamSettings settings;
    private final UpstreamListener listener;
    private final Ticker ticker;
    private FullHttpRequest request;
    private State state = State.ACQUIRING;
    private Channel channel;
    private boolean keepAlive;
    private boolean reused;
    private long sentAtNanos;
    private long readPendingSinceNanos;
    private long startedAtNanos;
    /**
     * One timer for the call's three deadlines (first byte, idle, total), armed for the earliest one that may be due and
     * re-armed when it fires early: a call that answers in time costs one schedule and one cancel, not three of each.
     */
    private ScheduledFuture<?> watchdog;
    private long watchdogAtNanos;

    UpstreamCall(EventLoop loop, ChannelPool pool, UpstreamSettings settings, FullHttpRequest request,
                 UpstreamListener listener, Ticker ticker) {
        this.ticker = ticker;
        this.loop = loop;
        this.pool = pool;
        this.settings = settings;
        this.request = request;
        this.listener = listener;
    }

    void start() {
        startedAtNanos = ticker.nanos();
        // No deadline can fall sooner: the request is sent, and its head arrives (idle counts from then), after now.
        armWatchdog(startedAtNanos + Math.min(settings.totalNanos(),
                Math.min(settings.firstByteNanos(), settings.idleNanos())), startedAtNanos);
        pool.acquire().addListener(this::acquired);
    }

    /** True when the attempt ran on a connection that had served an earlier request (it may have gone stale). */
    public boolean reusedConnection() {
        return reused;
    }

    /** The {@link Ticker#nanos()} at which the request was sent, or 0 before a connection was had. */
    public long sentAtNanos() {
        return sentAtNanos;
    }

    public UpstreamSettings settings() {
        return settings;
    }

    /** Asks for the next batch of the answer; see {@link UpstreamListener}. */
    public void requestMore() {
        if (state == State.STREAMING) {
            readPendingSinceNanos = ticker.nanos();
            channel.read();
        }
    }

    /** Abandons the call (the client went away): the connection is closed, so the backend stops generating. */
    public void cancel() {
        if (state == State.DONE) {
            return;
        }
        state = State.DONE;
        cancelTimers();
        releaseRequest();
        if (channel != null) {
            channel.attr(UpstreamHandler.CALL).set(null);
            channel.close();
            pool.release(channel);
        }
    }

    private void acquired(Future<? super Channel> future) {
        if (!future.isSuccess()) {
            Throwable cause = future.cause();
            boolean poolFull = cause instanceof TimeoutException || cause instanceof IllegalStateException;
            fail(poolFull ? UpstreamFailure.POOL_EXHAUSTED : UpstreamFailure.CONNECT_FAILED, cause);
            return;
        }
        Channel ch = (Channel) future.getNow();
        if (state == State.DONE) {
            pool.release(ch);
            return;
        }
        channel = ch;
        reused = UpstreamPools.markUsed(ch);
        state = State.WAITING_HEAD;
        ch.attr(UpstreamHandler.CALL).set(this);
        keepAlive = HttpUtil.isKeepAlive(request);
        sentAtNanos = ticker.nanos();
        FullHttpRequest toSend = request;
        request = null;
        ch.writeAndFlush(toSend).addListener(f -> {
            if (!f.isSuccess()) {
                fail(f.cause() instanceof ConnectException ? UpstreamFailure.CONNECT_FAILED
                        : UpstreamFailure.CLOSED_BEFORE_RESPONSE, f.cause());
            }
        });
        ch.read();
    }

    void onMessage(Object msg) {
        if (state == State.DONE) {
            ReferenceCountUtil.release(msg);
            return;
        }
        readPendingSinceNanos = 0;
        if (((HttpObject) msg).decoderResult().isFailure()) {
            Throwable cause = ((HttpObject) msg).decoderResult().cause();
            ReferenceCountUtil.release(msg);
            fail(UpstreamFailure.BAD_RESPONSE, cause);
            return;
        }
        if (msg instanceof HttpResponse head) {
            if (!onHead(head)) {
                ReferenceCountUtil.release(msg);
                return;
            }
        }
        if (msg instanceof HttpContent content) {
            if (content instanceof LastHttpContent) {
                finish();
            }
            listener.onContent(this, content);
        }
    }

    private boolean onHead(HttpResponse head) {
        if (state != State.WAITING_HEAD) {
            fail(UpstreamFailure.BAD_RESPONSE, null);
            return false;
        }
        state = State.STREAMING; // the watchdog now keeps the idle deadline instead of the first byte's
        if (watchdogAtNanos > sentAtNanos + settings.idleNanos()) {
            // Re-armed for a late first byte: idle may now fall due sooner (the head came after the send).
            watchdog.cancel(false);
            long now = ticker.nanos();
            armWatchdog(Math.min(watchdogAtNanos, now + settings.idleNanos()), now);
        }
        keepAlive &= HttpUtil.isKeepAlive(head);
        if (!listener.onResponseHead(this, head)) {
            abandon();
            return false;
        }
        return state == State.STREAMING;
    }

    void onReadComplete() {
        if (state == State.WAITING_HEAD) {
            channel.read(); // the head is not complete yet; keep reading until it is
        } else if (state == State.STREAMING) {
            listener.onReadComplete(this);
        }
    }

    void onClosed() {
        if (state == State.WAITING_HEAD) {
            fail(UpstreamFailure.CLOSED_BEFORE_RESPONSE, new ClosedChannelException());
        } else if (state == State.STREAMING) {
            fail(UpstreamFailure.CLOSED_MID_RESPONSE, new ClosedChannelException());
        }
    }

    void onError(Throwable cause) {
        fail(state == State.STREAMING ? UpstreamFailure.CLOSED_MID_RESPONSE : UpstreamFailure.BAD_RESPONSE, cause);
    }

    private void finish() {
        state = State.DONE;
        cancelTimers();
        channel.attr(UpstreamHandler.CALL).set(null);
        if (!keepAlive) {
            channel.close();
        } else {
            // A read stays pending while the connection idles in the pool: the socket's interest in reads stays
            // registered, where clearing it now and setting it for the next request cost two epoll_ctl calls a
            // request (strace of a proxying run), and a backend closing an idle connection is noticed at once.
            channel.read();
        }
        pool.release(channel);
    }

    private void abandon() {
        state = State.DONE;
        cancelTimers();
        channel.attr(UpstreamHandler.CALL).set(null);
        channel.close();
        pool.release(channel);
    }

    private void fail(UpstreamFailure failure, Throwable cause) {
        if (state == State.DONE) {
            return;
        }
        boolean hadChannel = channel != null;
        state = State.DONE;
        cancelTimers();
        releaseRequest();
        if (hadChannel) {
            channel.attr(UpstreamHandler.CALL).set(null);
            channel.close();
            pool.release(channel);
        }
        listener.onFailure(this, failure, cause);
    }

    private void armWatchdog(long atNanos, long nowNanos) {
        watchdogAtNanos = atNanos;
        watchdog = loop.schedule(this::checkDeadlines, Math.max(0, atNanos - nowNanos), TimeUnit.NANOSECONDS);
    }

    /**
     * Fails the call with the deadline that has passed, if one has, else arms the watchdog for the next: the total
     * from the start; the first byte from the request's write (not sent yet: at least a whole first-byte time from
     * now); idle from when a read was asked for and not answered (none pending: a whole idle time from now).
     */
    private void checkDeadlines() {
        if (state == State.DONE) {
            return;
        }
        long now = ticker.nanos();
        long next = startedAtNanos + settings.totalNanos();
        UpstreamFailure due = now >= next ? UpstreamFailure.TOTAL_TIMEOUT : null;
        if (state == State.STREAMING) {
            long since = readPendingSinceNanos;
            long idleAt = (since == 0 ? now : since) + settings.idleNanos();
            if (now >= idleAt && (due == null || idleAt < next)) {
                due = UpstreamFailure.IDLE_TIMEOUT;
            }
            next = Math.min(next, idleAt);
        } else {
            long firstByteAt = (state == State.WAITING_HEAD ? sentAtNanos : now) + settings.firstByteNanos();
            if (now >= firstByteAt && (due == null || firstByteAt < next)) {
                due = UpstreamFailure.FIRST_BYTE_TIMEOUT;
            }
            next = Math.min(next, firstByteAt);
        }
        if (due != null) {
            fail(due, null);
        } else {
            armWatchdog(next, now);
        }
    }

    private void cancelTimers() {
        if (watchdog != null) {
            watchdog.cancel(false);
        }
    }

    private void releaseRequest() {
        if (request != null) {
            request.release();
            request = null;
        }
    }
}
