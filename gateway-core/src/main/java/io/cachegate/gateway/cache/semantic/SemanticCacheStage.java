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
import io.cachegate.gateway.exchange.LookupStatus;
import io.cachegate.gateway.exchange.Speculation;
import io.cachegate.gateway.exchange.Stage;
import io.cachegate.gateway.metrics.GatewayMetrics;
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
    private final ExactWarming warming;

    public SemanticCacheStage(SemanticCache semantic, CacheStore store, HitAudits audits, GatewayMetrics metrics) {
        this.semantic = semantic;
        this.store = store;
        this.audits = audits;
        this.warming = new ExactWarming(store, metrics);
    }

    /**
     * None from the chain: the trace's {@code cache.semantic.lookup} span is the lookup's own, from the record
     * (under speculation the stage passes the request on at once while the lookup goes on).
     */
    @Override
    public String spanName() {
        return null;
    }

    @Override
    public void handle(Exchange x, Next next) {
        CacheableRequest c = x.get(CacheableRequest.KEY);
        if (c == null || c.query() == null || c.lookupsDone() || !c.decision().read()) {
            next.proceed(x); // not matched by meaning, or the client asked for a fresh answer (no-cache)
            return;
        }
        long start = x.ticker().nanos();
        Speculation speculation = semantic.settings().speculativeUpstream() ? Speculation.start(x) : null;
        Next onMiss = speculation == null ? next : missed -> speculation.miss();
        if (speculation != null && c.earlyVector() == null) {
            c.earlyVector(semantic.embedEarly(c.query().text())); // an answer stored first writes back with it
        }
        semantic.lookup(c.query(), x.route().route().cache(), x.evidenceScope(),
                        c.requestThreshold(),
                        EntryAccess.of(x).readable(), c.earlyVector())
                .whenComplete((result, error) -> x.resume(() ->
                        looked(x, c, start, error == null ? result : SemanticCache.Result.FAILED, onMiss)));
        if (speculation != null) {
            next.proceed(x); // towards the upstream call; what the client sees waits for the lookup
        }
    }

    /**
     * Whether the call's whole answer went to the client before the lookup decided (it may, until the lookup has
     * fetched its entry): then whatever the lookup found, the request was a miss, and nothing more is written.
     */
    private boolean answeredFirst(Exchange x, CacheableRequest c, SemanticCache.Result result) {
        Speculation speculation = Speculation.of(x);
        if (speculation == null || !speculation.committed()) {
            return false;
        }
        c.vector(result.vector());
        x.record().semanticLookup(LookupStatus.MISS);
        return true;
    }

    /** Continues on the client's event loop once the lookup has answered (it never fails). */
    private void looked(Exchange x, CacheableRequest c, long start, SemanticCache.Result result, Next next) {
        x.record().semanticLookup(start, result.embedNanos(), result.searchNanos());
        x.record().semanticDecided(x.ticker().nanos());
        x.record().semanticDecision(result.match().isPresent(), result.nearest());
        if (result.failedPart() != null) {
            x.record().semanticFailed(result.failedPart());
        }
        if (answeredFirst(x, c, result) || x.isDone()) {
            return;
        }
        c.vector(result.vector());
        if (result.match().isEmpty()) {
            if (result.failedPart() == null) {
                x.record().semanticLookup(LookupStatus.MISS);
            }
            if (!result.explore().isEmpty()) {
                // Not served, but close: the fresh answer this request gets is compared with theirs once stored.
                Exploration exploration = new Exploration(x.routeLabel(), x.tenant(), x.evidenceScope(),
                        result.explore());
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
            x.record().semanticLookup(LookupStatus.MISS);
            next.proceed(x);
            return;
        }
        long fetchStart = x.ticker().nanos();
        store.get(key.get()).whenComplete((entry, error) -> x.resume(() -> {
            if (answeredFirst(x, c, result) || x.isDone()) {
                return;
            }
            if (error != null) {
                x.record().semanticFailed("fetch");
            } else if (entry.isEmpty()) {
                semantic.forget(entryKey);
                x.record().semanticLookup(LookupStatus.MISS);
            } else if (!EntryAccess.of(x).mayRead(entry.get()) || !entry.get().freshAt(x.ticker().wallMillis())
                    || !c.control().accepts(x.ticker().wallMillis() - entry.get().createdAtMillis())) {
                // An entry kept past its TTL to answer stale is a miss here: only its own key's request may have it.
                x.record().semanticLookup(LookupStatus.MISS);
            } else {
                SemanticHit hit = new SemanticHit(match.similarity(), result.embedNanos(), result.searchNanos());
                long lookupNanos = c.exactLookupNanos() + x.ticker().nanos() - fetchStart;
                HitAudits.Due audit = audits.due(x); // before answering: the exchange frees its request then
                undoSpeculation(x, entry.get());
                if (CachedAnswerWriter.answer(x, entry.get(), lookupNanos, hit)) {
                    warming.warm(c, entry.get(), match.neighbour().expiresAtMillis(), x.ticker().wallMillis());
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
        Speculation speculation = Speculation.of(x);
        if (speculation == null || speculation.decided() || !CachedAnswerWriter.canAnswer(x, entry)) {
            return; // not speculative; or a miss after all, whose call goes on
        }
        speculation.hit();
        x.onCancel(null);
        x.answer().abortTentativeTaps(); // the taps from before the lookup see the hit
    }
}
