package io.cachegate.gateway.cache.coalesce;

import io.cachegate.cache.exact.OriginSpan;
import io.cachegate.gateway.exchange.ResponseTap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * One answer being generated that identical requests (same cache key) share instead of calling
 * the backend again. The leader's exchange feeds it as a {@link ResponseTap}; followers, on any
 * event loop, read the recorded pieces from the start at their own pace and are woken when more
 * arrive. The recording is bounded: past {@code maxBytes} the answer overflows, no follower joins
 * any more and those attached are cut off (LLM answers are far smaller than the bound).
 * A completed answer stays joinable until {@link #settle()} (its store write has finished), so a
 * request that missed the store just before the write still finds the answer here.
 */
public final class SharedAnswer implements ResponseTap {

    /** What a follower is told; always called on the follower's executor. */
    interface Subscriber {
        void wake();
    }

    private record Waiter(Subscriber subscriber, Executor executor) {
    }

    enum State { WAITING, STREAMING, COMPLETE, ABORTED }

    private final long maxBytes;
    private final String leaderRequestId;
    private final OriginSpan leaderSpan;
    private final Runnable onEnd;
    private final List<byte[]> pieces = new ArrayList<>();
    private final List<Waiter> waiters = new ArrayList<>();
    private HttpResponseStatus status;
    private HttpHeaders headers;
    private long bytes;
    private State state = State.WAITING;
    private boolean overflowed;
    private boolean settled;
    /** Told once, when the answer settles, whether it completed: this gateway's lease across the fleet ends. */
    private Consumer<Boolean> leaseEnd;

    SharedAnswer(long maxBytes, String leaderRequestId, OriginSpan leaderSpan, Runnable onEnd) {
        this.maxBytes = maxBytes;
        this.leaderRequestId = leaderRequestId;
        this.leaderSpan = leaderSpan;
        this.onEnd = onEnd;
    }

    /** The gateway's id of the request that generates this answer: what a follower shows as its origin. */
    String leaderRequestId() {
        return leaderRequestId;
    }

    /** The traced span of the request that generates this answer, which a follower's span links to; or null. */
    OriginSpan leaderSpan() {
        return leaderSpan;
    }

    /** Attaches a follower; false when the answer can no longer be shared (ended badly or overflowed). */
    synchronized boolean subscribe(Subscriber subscriber, Executor executor) {
        if (state == State.ABORTED || overflowed) {
            return false;
        }
        waiters.add(new Waiter(subscriber, executor));
        return true;
    }

    synchronized void unsubscribe(Subscriber subscriber) {
        waiters.removeIf(w -> w.subscriber() == subscriber);
    }

    synchronized State state() {
        return overflowed ? State.ABORTED : state;
    }

    synchronized HttpResponseStatus status() {
        return status;
    }

    synchronized HttpHeaders headers() {
        return headers;
    }

    synchronized int pieceCount() {
        return pieces.size();
    }

    synchronized byte[] piece(int index) {
        return pieces.get(index);
    }

    @Override
    public void onHead(HttpResponse head) {
        synchronized (this) {
            status = head.status();
            headers = new DefaultHttpHeaders().set(head.headers());
            state = State.STREAMING;
        }
        wakeAll();
    }

    @Override
    public void onContent(ByteBuf content) {
        if (!content.isReadable()) {
            return;
        }
        synchronized (this) {
            if (overflowed) {
                return;
            }
            bytes += content.readableBytes();
            if (bytes > maxBytes) {
                overflowed = true;
                pieces.clear();
            } else {
                pieces.add(ByteBufUtil.getBytes(content));
            }
        }
        wakeAll();
    }

    @Override
    public void onComplete() {
        end(State.COMPLETE);
    }

    @Override
    public void onAbort() {
        end(State.ABORTED);
    }

    @Override
    public synchronized boolean needsRest() {
        return !waiters.isEmpty() && !overflowed;
    }

    /** No request joins this answer any more: it failed, or its entry is in the store (or will not be). */
    public void settle() {
        Consumer<Boolean> lease;
        boolean completed;
        synchronized (this) {
            if (settled) {
                return;
            }
            settled = true;
            lease = leaseEnd;
            completed = state == State.COMPLETE && !overflowed;
        }
        onEnd.run();
        if (lease != null) {
            lease.accept(completed);
        }
    }

    /**
     * Runs {@code end} once when this answer settles (at once if it has), told whether it completed; a second
     * lease end is ignored: one answer ends this gateway's lease once.
     */
    void whenSettled(Consumer<Boolean> end) {
        boolean completed;
        synchronized (this) {
            if (leaseEnd != null) {
                return;
            }
            leaseEnd = end;
            if (!settled) {
                return;
            }
            completed = state == State.COMPLETE && !overflowed;
        }
        end.accept(completed);
    }

    private void end(State end) {
        synchronized (this) {
            if (state == State.COMPLETE || state == State.ABORTED) {
                return;
            }
            state = end;
        }
        if (end == State.ABORTED) {
            settle();
        }
        wakeAll();
    }

    private void wakeAll() {
        List<Waiter> copy;
        synchronized (this) {
            copy = List.copyOf(waiters);
        }
        for (Waiter w : copy) {
            w.executor().execute(w.subscriber()::wake);
        }
    }
}
