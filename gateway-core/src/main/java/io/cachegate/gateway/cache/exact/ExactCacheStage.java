package io.cachegate.gateway.cache.exact;

import io.cachegate.cache.exact.CacheControl;
import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.CacheStore;
import io.cachegate.cache.exact.Freshness;
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
 * An entry past its TTL within the request's {@code stale_while_revalidate} window answers at once ({@code X-Cache:
 * STALE}) while one background call refreshes it ({@link Revalidations}); one only within its {@code stale_if_error}
 * window does not answer: it stands by for the backend's failure ({@link StaleIfError}).
 */
public final class ExactCacheStage implements Stage {

    private final CacheStore store;
    private final Coalescer coalescer;
    private final Revalidations revalidations;

    /** Without background refreshes: an entry past its TTL never answers while the backend does. */
    public ExactCacheStage(CacheStore store, Coalescer coalescer) {
        this(store, coalescer, null);
    }

    /** @param revalidations where entries served stale are refreshed, or null for never */
    public ExactCacheStage(CacheStore store, Coalescer coalescer, Revalidations revalidations) {
        this.store = store;
        this.coalescer = coalescer;
        this.revalidations = revalidations;
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
            if (flight.staleEntry() != null && flight.generating()
                    && revalidating(x, c, flight.staleEntry(), 0, false)) {
                return; // the call in flight refreshes the entry: this request need not wait for it
            }
            if (flight.staleEntry() != null && c.decision().read()) {
                standBy(x, c, flight.staleEntry(), 0); // the leader's lookup found it: it stands in here too
            }
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
        if (entry.isPresent() && EntryAccess.of(x).mayRead(entry.get())) {
            CacheEntry found = entry.get();
            long now = x.ticker().wallMillis();
            Freshness freshness = Freshness.of(found, now, Math.max(staleWindowMillis(c), revalidateWindowMillis(c)));
            if (freshness == Freshness.FRESH && c.control().accepts(now - found.createdAtMillis())) {
                if (CachedAnswerWriter.answer(x, found, lookupNanos, null)) {
                    c.dropEarlyVector();
                } else {
                    c.endLookups(); // stored, but not replayable as a stream: the backend answers
                    next.proceed(x);
                }
                return;
            }
            if (freshness == Freshness.STALE) {
                if (revalidating(x, c, found, lookupNanos, true)) {
                    return;
                }
                standBy(x, c, found, lookupNanos);
            }
        }
        x.record().exactLookup(LookupStatus.MISS);
        next.proceed(x);
    }

    /**
     * Answers {@code x} at once from {@code stale}, an entry past its TTL, when it is within the request's {@code
     * stale_while_revalidate} window, and (with {@code refresh}) starts the entry's background refresh first; false
     * when the window, the entry's labels or a stream's replay do not allow it. Only for a request whose answer would
     * be stored: the refresh writes what a miss would.
     */
    private boolean revalidating(Exchange x, CacheableRequest c, CacheEntry stale, long lookupNanos, boolean refresh) {
        if (revalidations == null || !c.decision().read() || !c.decision().write()) {
            return false;
        }
        long now = x.ticker().wallMillis();
        if (Freshness.of(stale, now, revalidateWindowMillis(c)) != Freshness.STALE
                || !EntryAccess.of(x).mayRead(stale) || !CachedAnswerWriter.canAnswer(x, stale)) {
            return false;
        }
        if (refresh) {
            revalidations.refresh(x, c, stale);
        }
        c.endLookups();
        return CachedAnswerWriter.revalidating(x, stale, lookupNanos, Freshness.pastTtlMillis(stale, now));
    }

    /**
     * Keeps {@code stale}, an entry past its TTL, ready to answer should the call fail, when it is within the
     * request's window: the backend answers (and its answer replaces the entry) unless it cannot.
     */
    private static void standBy(Exchange x, CacheableRequest c, CacheEntry stale, long lookupNanos) {
        long window = staleWindowMillis(c);
        if (Freshness.of(stale, x.ticker().wallMillis(), window) == Freshness.STALE
                && EntryAccess.of(x).mayRead(stale) && CachedAnswerWriter.canAnswer(x, stale)) {
            c.staleEntry(stale);
            x.standIn(new StaleIfError(stale, window, lookupNanos));
        }
    }

    /**
     * How long past its TTL an entry may stand in for this request's failed call: the route's {@code
     * stale_if_error}, narrowed by the client's {@code Cache-Control} ({@link CacheControl#staleIfErrorMillis}).
     */
    static long staleWindowMillis(CacheableRequest c) {
        return c.control().staleIfErrorMillis(c.staleIfError().toMillis());
    }

    /**
     * How long past its TTL an entry may answer this request at once while it is refreshed: the route's {@code
     * stale_while_revalidate}, narrowed by the client's {@code Cache-Control}.
     */
    static long revalidateWindowMillis(CacheableRequest c) {
        return c.control().staleWhileRevalidateMillis(c.staleWhileRevalidate().toMillis());
    }
}
