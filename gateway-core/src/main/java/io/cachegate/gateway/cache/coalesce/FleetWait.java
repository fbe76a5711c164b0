package io.cachegate.gateway.cache.coalesce;

import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.CacheKey;
import io.cachegate.cache.exact.CacheStore;
import io.cachegate.cache.exact.FlightLeases;
import io.cachegate.gateway.cache.CacheableRequest;
import io.cachegate.gateway.cache.CachedAnswerWriter;
import io.cachegate.gateway.cache.EntryAccess;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.exchange.Stage;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One request's claim of its key across gateways, and its wait when another gateway holds the lease. Every step
 * runs on the request's event loop (Redis answers and pub/sub words are handed over with {@link Exchange#resume}),
 * so the state needs no lock. The wait ends at the first of: word that the holder's answer is stored (read the
 * entry, answer a hit), word that it will not be (claim again: one of the waiters leads now), the holder's lease
 * lapsing (a waiter claims again every quarter of the lease's lifetime: the one that gets it reads the entry once more,
 * then leads), the bound (call the backend), the client leaving. A waiter registers for the word before it claims,
 * so a word sent in between is not lost. A read that fails is tried up to three times more before the request
 * calls the backend.
 */
final class FleetWait implements FlightLeases.Listener {

    private static final AsciiString FLEET = AsciiString.cached("fleet");
    /** A failed read is tried again after 50, 100 and 200 ms: a waiter's read failing costs a whole upstream call. */
    private static final long READ_RETRY_MILLIS = 50;
    private static final int READ_TRIES = 4;

    private final Exchange x;
    private final CacheableRequest c;
    private final CacheKey key;
    private final FlightLeases leases;
    private final CacheStore store;
    private final Stage.Next next;
    private final Duration leaseTtl;
    private Duration bound;
    private long deadlineNanos;
    private ScheduledFuture<?> timer;
    private ScheduledFuture<?> poll;
    /** A lease this request took over from a holder that lapsed: it reads the entry once more before it leads. */
    private boolean tookOver;
    private int reads;
    private int unavailableChecks;
    private boolean listening;
    private boolean claimPending;
    /** Word that came while a claim was on its way: null, or whether the generation was done. */
    private Boolean earlyWord;
    private boolean over;

    /** @param leaseTtl the leases' lifetime, which their holders renew: waiters check on the holder four times in it */
    FleetWait(Exchange x, CacheableRequest c, FlightLeases leases, CacheStore store,
              Stage.Next next, Duration leaseTtl) {
        this.leaseTtl = leaseTtl;
        this.x = x;
        this.c = c;
        this.key = c.key();
        this.leases = leases;
        this.store = store;
        this.next = next;
    }

    void start(Duration waitBound) {
        this.bound = waitBound;
        this.deadlineNanos = x.ticker().nanos() + waitBound.toNanos();
        claim();
    }

    private void claim() {
        listening = leases.listen(key, this);
        send(false);
    }

    /** Claims the key; {@code polling}: while waiting, to see whether the holder's lease lapsed. */
    private void send(boolean polling) {
        claimPending = true;
        earlyWord = null;
        leases.claim(key, leaseTtl, bound).whenComplete((claim, error) -> x.resume(() ->
                claimed(error == null ? claim : FlightLeases.Claim.UNAVAILABLE, polling)));
    }

    private void claimed(FlightLeases.Claim claim, boolean polling) {
        claimPending = false;
        if (over || gone()) {
            if (claim == FlightLeases.Claim.LEAD) {
                leases.release(key, false); // taken as the wait ended: give it to the next waiter
            }
            return;
        }
        if (polling && earlyWord != null && claim != FlightLeases.Claim.LEAD) {
            ended(earlyWord.booleanValue(), false); // the word came while the check was on its way
            return;
        }
        switch (claim) {
            case LEAD -> {
                x.set(FleetCoalesceStage.CLAIMED, Boolean.TRUE);
                if (polling) {
                    // The holder's lease lapsed (it died) or just ended: its entry may be there after all.
                    x.record().fleetTakeover();
                    tookOver = true;
                    read();
                } else {
                    proceed("led");
                }
            }
            case OURS -> {
                x.set(FleetCoalesceStage.CLAIMED, Boolean.TRUE);
                proceed("joined");
            }
            case UNAVAILABLE -> {
                if (polling && ++unavailableChecks < 2) {
                    schedulePoll(); // a blip in the leases: keep waiting for the word or the next check
                } else {
                    proceed("unavailable"); // Redis is gone: no word will come, call the backend (one per gateway)
                }
            }
            case DONE -> read();
            case ELSEWHERE -> {
                unavailableChecks = 0;
                waitForWord();
            }
        }
    }

    private void waitForWord() {
        if (earlyWord != null) {
            ended(earlyWord.booleanValue(), false); // the word came before the claim's answer (and ended the listening)
            return;
        }
        if (!listening) {
            proceed("full"); // no word could come (too many waiters, or pub/sub just lost): call the backend now
            return;
        }
        if (timer == null) {
            x.onCancel(this::cancel);
            long left = Math.max(0, deadlineNanos - x.ticker().nanos());
            timer = x.ctx().executor().schedule(this::timedOut, left, TimeUnit.NANOSECONDS);
        }
        schedulePoll();
    }

    /** Checks on the holder again in a quarter of the lease's lifetime: a lapsed lease is taken over. */
    private void schedulePoll() {
        cancelPoll();
        long every = Math.max(TimeUnit.MILLISECONDS.toNanos(25), leaseTtl.toNanos() / 4);
        poll = x.ctx().executor().schedule(() -> {
            if (!over && !claimPending) {
                send(true);
            }
        }, every, TimeUnit.NANOSECONDS);
    }

    /** On the leases' thread: the holder's generation ended. */
    @Override
    public void ended(boolean done) {
        x.resume(() -> ended(done, true));
    }

    private void ended(boolean done, boolean fromWord) {
        if (fromWord) {
            listening = false; // a word ends the registration
        }
        if (over) {
            return;
        }
        if (claimPending) {
            earlyWord = done;
            return;
        }
        if (done) {
            read();
        } else if (x.ticker().nanos() < deadlineNanos) {
            claim(); // the holder failed: one of the waiters takes the lease and leads
        } else {
            proceed("timeout");
        }
    }

    /** The holder's answer is stored: read it and answer from it when this request may have it. */
    private void read() {
        unlisten();
        cancelPoll();
        long t0 = x.ticker().nanos();
        store.get(key).whenComplete((entry, error) -> x.resume(() -> serve(error == null ? entry : null, t0)));
    }

    private void serve(Optional<CacheEntry> entry, long t0) {
        if (over || gone()) {
            return;
        }
        if (entry == null && ++reads < READ_TRIES && x.ticker().nanos() < deadlineNanos) {
            // A read that failed (a slow store, a blip): again, a little later each time.
            x.ctx().executor().schedule(this::read, READ_RETRY_MILLIS << (reads - 1), TimeUnit.MILLISECONDS);
            return;
        }
        long lookupNanos = x.ticker().nanos() - t0;
        if (entry == null || entry.isEmpty() || !EntryAccess.of(x).mayRead(entry.get())
                || !c.control().accepts(x.ticker().wallMillis() - entry.get().createdAtMillis())
                || !CachedAnswerWriter.canAnswer(x, entry.get())) {
            // Not stored, or not for this request: its own call (a lease taken over is led from here).
            proceed(tookOver ? "led" : entry == null ? "read_failed" : "miss");
            return;
        }
        if (tookOver) {
            leases.release(key, true); // the lapsed holder's entry was there: the other waiters read it too
        }
        end("hit");
        x.record().reason("fleet_coalesced");
        x.responseHeader(GatewayHeaders.X_CACHE_COALESCED, FLEET);
        CachedAnswerWriter.answer(x, entry.get(), lookupNanos, null);
        c.dropEarlyVector();
    }

    /** The client left while a claim or read was on its way (no hook was set then): the exchange is finished. */
    private boolean gone() {
        if (x.isDone()) {
            end("cancelled");
            return true;
        }
        return false;
    }

    private void timedOut() {
        if (!over) {
            proceed("timeout");
        }
    }

    /** The client went away while waiting. */
    private void cancel() {
        if (!over) {
            end("cancelled");
            x.finish(499);
        }
    }

    private void proceed(String outcome) {
        end(outcome);
        next.proceed(x);
    }

    private void end(String outcome) {
        over = true;
        unlisten();
        cancelPoll();
        if (timer != null) {
            timer.cancel(false);
            x.onCancel(null);
        }
        x.record().fleetOutcome(outcome);
    }

    private void cancelPoll() {
        if (poll != null) {
            poll.cancel(false);
            poll = null;
        }
    }

    private void unlisten() {
        if (listening) {
            listening = false;
            leases.unlisten(key, this);
        }
    }
}
