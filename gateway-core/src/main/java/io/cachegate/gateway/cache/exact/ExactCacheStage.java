package io.cachegate.gateway.cache.exact;

import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.CacheStore;
import io.cachegate.gateway.cache.CacheableRequest;
import io.cachegate.gateway.cache.CachedAnswerWriter;
import io.cachegate.gateway.cache.EntryAccess;
import io.cachegate.gateway.cache.coalesce.CoalesceStage;
import io.cachegate.gateway.cache.coalesce.Coalescer;
import io.cachegate.gateway.cache.coalesce.SharedAnswer;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.LookupStatus;
import io.cachegate.gateway.exchange.Stage;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The exact cache: looks the request's key up in the store (in-process, Redis, or both) and answers a hit the
 * client's {@code Cache-Control} accepts. The store failing (Redis down or slow) is never an error: the request is a
 * miss that no cache answers but that still coalesces with identical ones. A request whose identical answer is being
 * generated right now skips the lookup: that answer is the freshest there is, and the coalescing stage will follow it.
 */
public final class ExactCacheStage implements Stage {

    private final CacheStore store;
    private final Coalescer coalescer;

    public ExactCacheStage(CacheStore store, Coalescer coalescer) {
        this.store = store;
        this.coalescer = coalescer;
    }

    /** None from the chain: the trace's {@code cache.exact.lookup} span is the store lookup's own, from the record. */
    @Override
    public String spanName() {
        return null;
    }

    @Override
    public void handle(Exchange x, Next next) {
        CacheableRequest c = x.get(CacheableRequest.KEY);
        if (c == null) {
            next.proceed(x);
            return;
        }
        SharedAnswer flight = c.decision().write()
                ? coalescer.inFlight(c.key(), x.parsed().stream(), x.parsed().includeUsage()) : null;
        if (flight != null && CoalesceStage.servable(x, c, flight)) {
            x.record().exactLookup(LookupStatus.MISS);
            c.endLookups();
            x.set(CoalesceStage.FOLLOW, flight); // that very answer, even if it settles before the coalescing stage
            next.proceed(x);
            return;
        }
        if (!c.decision().read()) {
            x.record().exactLookup(LookupStatus.MISS);
            next.proceed(x);
            return;
        }
        long t0 = x.ticker().nanos();
        CompletableFuture<Optional<CacheEntry>> lookup = store.get(c.key());
        if (lookup.isDone() && x.ctx().executor().inEventLoop()) {
            // The in-process store answers at once: carry on here rather than queue a task behind other I/O.
            Optional<CacheEntry> entry = lookup.handle((e, error) -> error == null ? e : null).join();
            looked(x, c, entry, entry == null, t0, next);
        } else {
            // With Lettuce on the gateway's loops the answer arrives on this very loop: carry on there and then.
            lookup.whenComplete((entry, error) -> x.resumeHere(() -> looked(x, c, entry, error != null, t0, next)));
        }
    }

    /** Continues on the client's event loop once the store has answered. */
    private void looked(Exchange x, CacheableRequest c, Optional<CacheEntry> entry, boolean failed, long t0,
                        Next next) {
        long lookupNanos = x.ticker().nanos() - t0;
        c.exactLookupNanos(lookupNanos);
        x.record().cacheLookup(t0, lookupNanos);
        if (x.isDone()) {
            return;
        }
        if (failed) {
            // Fail open: the store is down or slow, so no cache answers this request (the semantic one's entries are
            // in the same store). It stays cacheable, though: identical requests still share one upstream call, and
            // its answer is written should the store be back by then.
            x.record().exactLookup(LookupStatus.ERROR);
            x.record().reason("store_unavailable");
            c.endLookups();
            next.proceed(x);
            return;
        }
        // An entry with a label this request's key does not hold (now) is a miss like any other: nothing says it exists.
        if (entry.isPresent() && EntryAccess.of(x).mayRead(entry.get())
                && c.control().accepts(x.ticker().wallMillis() - entry.get().createdAtMillis())) {
            if (CachedAnswerWriter.answer(x, entry.get(), lookupNanos, null)) {
                c.dropEarlyVector();
            } else {
                c.endLookups(); // stored, but not replayable as a stream: the backend answers
                next.proceed(x);
            }
            return;
        }
        x.record().exactLookup(LookupStatus.MISS);
        next.proceed(x);
    }
}
