package io.cachegate.gateway.cache.semantic;

import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.CacheKey;
import io.cachegate.cache.exact.CacheStore;
import io.cachegate.cache.semantic.MatchDecision;
import io.cachegate.gateway.cache.CacheableRequest;
import io.cachegate.gateway.cache.CachedAnswerWriter;
import io.cachegate.gateway.cache.EntryAccess;
import io.cachegate.gateway.cache.SemanticHit;
import io.cachegate.gateway.cache.audit.Exploration;
import io.cachegate.gateway.cache.audit.HitAudits;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Speculation;
import io.cachegate.gateway.exchange.Stage;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.gateway.telemetry.trace.StageSpan;
import io.cachegate.gateway.telemetry.trace.Traces;
import java.time.Duration;
import java.util.Optional;

/**
 * The semantic cache, after an exact miss: embeds the request's text, searches its scope's nearest entries, and
 * when the match decision picks one, answers with the exact entry it points at (and files that answer under this
 * request's own key, so its repeats are exact hits). Every failure (embedder full, index down, entry gone) is a
 * miss: this stage can cost a miss, never an error.
 * With {@code speculative_upstream} the rest of the path goes on while the lookup runs (a {@link Speculation}): the
 * upstream call starts into idle capacity, nothing reaches the client before the lookup decides (but a whole answer
 * that arrives first), and a hit cancels the call. A miss then waits for no embedding; the price is a backend call
 * begun for every such hit.
 */
public final class SemanticCacheStage implements Stage {

    private final SemanticCache semantic;
    private final CacheStore store;
    private final HitAudits audits;
    private final GatewayMetrics metrics;

    public SemanticCacheStage(SemanticCache semantic, CacheStore store, HitAudits audits, GatewayMetrics metrics) {
        this.semantic = semantic;
        this.store = store;
        this.audits = audits;
        this.metrics = metrics;
    }

    @Override
    public void handle(Exchange x, Next next) {
        CacheableRequest c = x.get(CacheableRequest.KEY);
        if (c == null || c.query() == null || c.lookupsDone() || !c.decision().read()) {
            next.proceed(x); // not matched by meaning, or the client asked for a fresh answer (no-cache)
            return;
        }
        StageSpan span = Traces.of(x).start("cache.semantic.lookup");
        Speculation speculation = semantic.settings().speculativeUpstream() ? Speculation.start(x) : null;
        Next onMiss = speculation == null ? next : missed -> missed(missed, speculation);
        if (speculation != null && c.earlyVector() == null) {
            c.earlyVector(semantic.embedEarly(c.query().text())); // an answer stored first writes back with it
        }
        semantic.lookup(c.query(), x.route().route().cache(), x.routeLabel(), c.requestThreshold(),
                        EntryAccess.of(x).readable(), c.earlyVector())
                .whenComplete((result, error) -> {
                    traced(span, error == null ? result : SemanticCache.Result.FAILED);
                    x.resume(() -> looked(x, c, error == null ? result : SemanticCache.Result.FAILED, onMiss));
                });
        if (speculation != null) {
            next.proceed(x); // towards the upstream call; what the client sees waits for the lookup
        }
    }

    /** A speculative lookup missed: the request is a miss, and its call (under way, or parked) goes on. */
    private void missed(Exchange x, Speculation speculation) {
        metrics.cacheMiss(x.routeLabel()); // the coalescing stage leaves a pending request's miss uncounted
        semantic.metrics().speculation(speculation.miss() ? "used" : "waited");
    }

    /**
     * Whether the call's whole answer went to the client before the lookup decided (it may, until the lookup has
     * fetched its entry): then whatever the lookup found, the request was a miss, and nothing more is written.
     */
    private boolean answeredFirst(Exchange x, CacheableRequest c, SemanticCache.Result result) {
        Speculation speculation = x.get(Speculation.KEY);
        if (speculation == null || !speculation.committed()) {
            return false;
        }
        c.vector(result.vector());
        metrics.cacheMiss(x.routeLabel());
        metrics.cacheLookup("semantic", "miss");
        semantic.metrics().speculation("answered_first");
        return true;
    }

    /** The lookup's span, with the embedder's and the index's timings as its children (the decision is in search). */
    private static void traced(StageSpan span, SemanticCache.Result result) {
        span.child("cache.semantic.embed", 0, result.embedNanos());
        span.child("cache.semantic.search", result.embedNanos(), result.searchNanos());
        result.match().ifPresent(m -> span.set("cachegate.similarity", m.similarity()));
        if (result.failed()) {
            span.fail("fail_open");
        } else {
            span.end();
        }
    }

    /** Continues on the client's event loop once the lookup has answered (it never fails). */
    private void looked(Exchange x, CacheableRequest c, SemanticCache.Result result, Next next) {
        if (answeredFirst(x, c, result) || x.isDone()) {
            return;
        }
        c.vector(result.vector());
        x.record().semanticLookup(result.embedNanos(), result.searchNanos());
        if (result.match().isEmpty()) {
            metrics.cacheLookup("semantic", result.failed() ? "error" : "miss");
            if (!result.explore().isEmpty()) {
                // Not served, but close: the fresh answer this request gets is compared with theirs once stored.
                Exploration exploration = new Exploration(x.routeLabel(), x.tenant(), result.explore());
                c.afterStore(entry -> audits.explore(exploration, c.key().redisKey(), entry));
            }
            next.proceed(x);
            return;
        }
        MatchDecision.Match match = result.match().get();
        String entryKey = match.neighbour().entryKey();
        Optional<CacheKey> key = CacheKey.fromRedisKey(entryKey)
                // The scope holds tenant and model version already; checked again because a mix-up here leaks.
                .filter(k -> k.tenant().equals(c.key().tenant()) && k.modelVersion().equals(c.key().modelVersion()));
        if (key.isEmpty()) {
            semantic.forget(entryKey);
            metrics.cacheLookup("semantic", "miss");
            next.proceed(x);
            return;
        }
        long fetchStart = x.ticker().nanos();
        store.get(key.get()).whenComplete((entry, error) -> x.resume(() -> {
            if (answeredFirst(x, c, result) || x.isDone()) {
                return;
            }
            if (error != null) {
                semantic.metrics().failOpen("fetch");
                metrics.cacheLookup("semantic", "error");
            } else if (entry.isEmpty()) {
                semantic.forget(entryKey);
                metrics.cacheLookup("semantic", "miss");
            } else if (!EntryAccess.of(x).mayRead(entry.get())
                    || !c.control().accepts(x.ticker().wallMillis() - entry.get().createdAtMillis())) {
                metrics.cacheLookup("semantic", "miss");
            } else {
                SemanticHit hit = new SemanticHit(match.similarity(), result.embedNanos(), result.searchNanos());
                long lookupNanos = c.exactLookupNanos() + x.ticker().nanos() - fetchStart;
                HitAudits.Due audit = audits.due(x); // before answering: the exchange frees its request then
                undoSpeculation(x, entry.get());
                if (CachedAnswerWriter.answer(x, entry.get(), lookupNanos, hit, metrics)) {
                    warmExact(x, c, entry.get(), match.neighbour().expiresAtMillis());
                    if (audit != null) {
                        audit.start(match.neighbour(), result.prior(), entry.get());
                    }
                    return;
                }
                if (audit != null) {
                    audit.cancel();
                }
            }
            next.proceed(x);
        }));
    }

    /**
     * A speculative lookup that will answer: the call it began is cancelled (or never starts) and the stages after
     * this one let go (the flight it leads, the capture), as when a client leaves.
     */
    private void undoSpeculation(Exchange x, CacheEntry entry) {
        Speculation speculation = x.get(Speculation.KEY);
        if (speculation == null || speculation.decided() || !CachedAnswerWriter.canAnswer(x, entry)) {
            return; // not speculative; or a miss after all, whose call goes on
        }
        semantic.metrics().speculation(speculation.hit() ? "cancelled" : "not_started");
        x.onCancel(null);
        x.answer().abortTentativeTaps(); // the taps from before the lookup see the hit
    }

    /** A semantic hit also files the answer under this request's own key, so its repeats are exact hits. */
    private void warmExact(Exchange x, CacheableRequest c, CacheEntry entry, long expiresAtMillis) {
        long remaining = expiresAtMillis - x.ticker().wallMillis();
        if (!c.decision().write() || remaining <= 0) {
            return;
        }
        store.put(c.key(), entry, Duration.ofMillis(remaining)).exceptionally(error -> {
            metrics.cacheWriteFailed();
            return null;
        });
    }
}
