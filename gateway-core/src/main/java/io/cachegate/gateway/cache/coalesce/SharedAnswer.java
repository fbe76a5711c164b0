package io.cachegate.gateway.cache.coalesce;

import io.cachegate.cache.exact.CacheEntry;

import io.cachegate.cache.exact.OriginSpan;
import io.cachegate.config.Ticker;
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
import java.util.function.LongPredicate;

/**
 * One answer being generated that identical requests (same cache key) share instead of calling
 * the backend again. The leader's exchange feeds it as a {@link ResponseTap}; followers, on any
 * event loop, read the recorded pieces from the start at their own pace and are woken when more
 * arrive. The recording is bounded: past {@code maxBytes} the answer overflows, no follower joins
 * any more and those attached are cut off (LLM answers are far smaller than the bound).
 * A completed answer stays joinable until it {@link #settle settles} (its entry is readable in the store, or will
 * never be), and a storable one a little longer, {@link Coalescer#LINGER}: a request that arrived before the write
 * landed (its lookup missed), or whose store cannot hold the entry (slow, failing, down), is served from it instead of
 * calling the backend again. A request that arrives after the entry is readable looks it up as usual, so a purge
 * holds for it; a purge here also ends every lingering answer ({@link Coalescer#purged()}).
 */
public final class SharedAnswer implements ResponseTap {

    /** What a follower is told; always called on the follower's executor. */
    interface Subscriber {
        void wake();
    }

    private record Waiter(Subscriber subscriber, Executor executor) {
    }

    enum State { WAITING, STREAMING, COMPLETE, ABORTED }

    /** How the capture of a completed answer ended, which decides whether the answer lingers and what the fleet hears. */
    public enum Outcome {
        /** Written: the entry is readable in the store. */
        STORED,
        /** Not storable (failed, cut off, not cacheable by policy, or refused by the sensitive-data screen). */
        NOT_STORED,
        /** Storable, but the store refused or failed the write: the entry is not readable. */
        WRITE_FAILED
    }

    private final long maxBytes;
    private final String leaderRequestId;
    /** The leader's entry past its TTL, for followers that skipped the lookup (see {@link #staleEntry()}). */
    private volatile CacheEntry staleEntry;
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
    private boolean stored;
    private long completedAtMillis;
    private long settledAtNanos;
    /** Told once, when the answer settles, whether it completed: this gateway's lease across the fleet ends. */
    private Consumer<Boolean> leaseEnd;
    /** Keeps a settled, storable answer joinable for a while, or says no (then it ends at once). */
    private final Lingering lingering;
    private final Ticker ticker;

    /** Where a settled, storable answer waits before it stops being joinable. */
    interface Lingering {
        /** Runs {@code end} after the linger time; false when too many answers linger already (nothing is scheduled). */
        boolean linger(Runnable end);
    }

    /** @param ticker the wall clock a completed answer's age is read from, the same as the requests' */
    SharedAnswer(long maxBytes, String leaderRequestId, OriginSpan leaderSpan, Runnable onEnd, Lingering lingering,
                 Ticker ticker) {
        this.maxBytes = maxBytes;
        this.leaderRequestId = leaderRequestId;
        this.leaderSpan = leaderSpan;
        this.onEnd = onEnd;
        this.lingering = lingering;
        this.ticker = ticker;
    }

    /** The gateway's id of the request that generates this answer: what a follower shows as its origin. */
    /**
     * The entry past its TTL the leader's lookup found, which may stand in should the call fail; null for none.
     * A request that followed this answer without a lookup of its own reads it here.
     */
    public CacheEntry staleEntry() {
        return staleEntry;
    }

    void staleEntry(CacheEntry entry) {
        this.staleEntry = entry;
    }

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

    /**
     * Whether a request may be served this answer: always while it is being generated (the freshest there is); once
     * complete only as a cached answer would be, when the request may read the cache and accepts the answer's age, and
     * once stored only when the request arrived before its entry was readable.
     *
     * @param arrivedNanos when the request arrived, on the same ticker as this answer's
     */
    public synchronized boolean servable(boolean mayRead, LongPredicate acceptsAgeMillis, long arrivedNanos) {
        if (state != State.COMPLETE) {
            return true;
        }
        if (stored && arrivedNanos - settledAtNanos >= 0) {
            return false; // arrived after its entry was readable: the store answers it (and a purge holds)
        }
        return mayRead && acceptsAgeMillis.test(Math.max(0, ticker.wallMillis() - completedAtMillis));
    }

    /** True while the answer is being generated: neither complete nor ended badly. */
    public synchronized boolean generating() {
        return !overflowed && (state == State.WAITING || state == State.STREAMING);
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

    /**
     * The capture of this answer ended: the fleet hears whether it completed, and no request joins this answer any
     * more, but for a storable one, which lingers first (see the class doc).
     */
    public void settle(Outcome outcome) {
        Consumer<Boolean> lease;
        boolean completed;
        boolean linger;
        synchronized (this) {
            if (settled) {
                return;
            }
            settled = true;
            settledAtNanos = ticker.nanos();
            completed = state == State.COMPLETE && !overflowed;
            stored = outcome == Outcome.STORED && completed;
            lease = leaseEnd;
            linger = outcome != Outcome.NOT_STORED && completed;
        }
        if (!linger || !lingering.linger(onEnd)) {
            onEnd.run();
        }
        if (lease != null) {
            lease.accept(completed);
        }
    }

    /** A purge: a settled answer lingering after its write stops being joinable now (one in flight goes on). */
    void endLingering() {
        synchronized (this) {
            if (!settled) {
                return;
            }
        }
        onEnd.run(); // removes it from the flights, once: the timer's later run finds it gone
    }

    /**
     * Runs {@code end} once when this answer settles (at once if it has), told whether it completed: its waiters
     * elsewhere then read the entry (and, when it was not stored, call on their own, one call per gateway), or one of
     * them leads; a second lease end is ignored: one answer ends this gateway's lease once.
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
            completedAtMillis = ticker.wallMillis();
        }
        if (end == State.ABORTED) {
            settle(Outcome.NOT_STORED);
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
