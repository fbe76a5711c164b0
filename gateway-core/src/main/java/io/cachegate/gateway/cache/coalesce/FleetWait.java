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
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.gateway.telemetry.trace.StageSpan;
import io.cachegate.gateway.telemetry.trace.Traces;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One request's claim of its key across gateways, and its wait when another gateway holds the lease. Every step
 * runs on the request's event loop (Redis answers and pub/sub words are handed over with {@link Exchange#resume}),
 * so the state needs no lock. The wait ends at the first of: word that the holder's answer is done (read the entry,
 * answer a hit), word that it failed (claim again: one of the waiters leads now), the bound (call the backend), the
 * client leaving. A waiter registers for the word before it claims, so a word sent in between is not lost.
 */
final class FleetWait implements FlightLeases.Listener {

    private static final AsciiString FLEET = AsciiString.cached("fleet");

    private final Exchange x;
    private final CacheableRequest c;
    private final CacheKey key;
    private final FlightLeases leases;
    private final CacheStore store;
    private final GatewayMetrics metrics;
    private final Stage.Next next;
    private Duration bound;
    private long deadlineNanos;
    private ScheduledFuture<?> timer;
    private StageSpan span = StageSpan.NONE;
    private boolean listening;
    private boolean claimPending;
    /** Word that came while a claim was on its way: null, or whether the generation was done. */
    private Boolean earlyWord;
    private boolean over;

    FleetWait(Exchange x, CacheableRequest c, FlightLeases leases, CacheStore store, GatewayMetrics metrics,
              Stage.Next next) {
        this.x = x;
        this.c = c;
        this.key = c.key();
        this.leases = leases;
        this.store = store;
        this.metrics = metrics;
        this.next = next;
    }

    void start(Duration waitBound) {
        this.bound = waitBound;
        this.deadlineNanos = x.ticker().nanos() + waitBound.toNanos();
        claim();
    }

    private void claim() {
        listening = leases.listen(key, this);
        claimPending = true;
        earlyWord = null;
        leases.claim(key, bound).whenComplete((claim, error) -> x.resume(() ->
                claimed(error == null ? claim : FlightLeases.Claim.UNAVAILABLE)));
    }

    private void claimed(FlightLeases.Claim claim) {
        claimPending = false;
        if (over || gone()) {
            return;
        }
        switch (claim) {
            case LEAD, OURS -> {
                x.set(FleetCoalesceStage.CLAIMED, Boolean.TRUE);
                proceed(claim == FlightLeases.Claim.LEAD ? "led" : "joined");
            }
            case UNAVAILABLE -> proceed("unavailable");
            case DONE -> read();
            case ELSEWHERE -> waitForWord();
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
            span = Traces.of(x).start("cache.coalesce.fleet.wait");
            x.onCancel(this::cancel);
            long left = Math.max(0, deadlineNanos - x.ticker().nanos());
            timer = x.ctx().executor().schedule(this::timedOut, left, TimeUnit.NANOSECONDS);
        }
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

    /** The holder's answer is done: read it from the store and answer from it when this request may have it. */
    private void read() {
        unlisten();
        long t0 = x.ticker().nanos();
        store.get(key).whenComplete((entry, error) -> x.resume(() -> serve(error == null ? entry : null, t0)));
    }

    private void serve(Optional<CacheEntry> entry, long t0) {
        if (over || gone()) {
            return;
        }
        long lookupNanos = x.ticker().nanos() - t0;
        if (entry == null || entry.isEmpty() || !EntryAccess.of(x).mayRead(entry.get())
                || !c.control().accepts(x.ticker().wallMillis() - entry.get().createdAtMillis())
                || !CachedAnswerWriter.canAnswer(x, entry.get())) {
            proceed("miss"); // not stored (an answer that is not stored), or not for this request: its own call
            return;
        }
        end("hit");
        x.record().reason("fleet_coalesced");
        x.responseHeader(GatewayHeaders.X_CACHE_COALESCED, FLEET);
        CachedAnswerWriter.answer(x, entry.get(), lookupNanos, null, metrics);
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
        if (timer != null) {
            timer.cancel(false);
            x.onCancel(null);
        }
        if (outcome.equals("hit") || outcome.equals("led") || outcome.equals("joined")) {
            span.end();
        } else {
            span.fail(outcome);
        }
        metrics.fleetCoalesce(outcome);
    }

    private void unlisten() {
        if (listening) {
            listening = false;
            leases.unlisten(key, this);
        }
    }
}
