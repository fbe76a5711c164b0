package io.cachegate.gateway.cache.capture;

import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.CacheStore;
import io.cachegate.gateway.cache.AnswerScreen;
import io.cachegate.gateway.cache.CacheKeys;
import io.cachegate.gateway.cache.CacheableRequest;
import io.cachegate.gateway.cache.EntryAccess;
import io.cachegate.gateway.cache.coalesce.CoalesceStage;
import io.cachegate.gateway.cache.coalesce.SharedAnswer;
import io.cachegate.gateway.cache.semantic.SemanticCache;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.RequestIds;
import io.cachegate.gateway.exchange.Stage;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.gateway.telemetry.trace.RequestTrace;
import io.cachegate.gateway.telemetry.trace.StageSpan;
import io.cachegate.gateway.telemetry.trace.Traces;
import java.util.function.BooleanSupplier;

/**
 * Capture and write-back: puts a tap on the answer the relay will write that assembles it and, when it is
 * complete, successful and storable, writes it to the exact cache and then files the request's vector in the
 * semantic index. An answer from a route's fallback is filed under the fallback model's own key. The answer a
 * request leads for its followers stays joinable until this write has settled (a little longer when it failed).
 */
public final class CaptureStage implements Stage {

    /** A stored answer is at most this large; longer answers are relayed but not stored. */
    static final long MAX_ENTRY_BYTES = 8L * 1024 * 1024;

    private final CacheStore store;
    private final CacheKeys keys;
    /** Null when the policy has no semantic cache. */
    private final SemanticCache semantic;
    private final BooleanSupplier skipOptionalWork;
    private final GatewayMetrics metrics;

    /**
     * @param semantic the semantic cache the write-back files vectors in, or null
     * @param skipOptionalWork true while admission control is in overload mode: the semantic write-back waits
     */
    public CaptureStage(CacheStore store, CacheKeys keys, SemanticCache semantic,
                        BooleanSupplier skipOptionalWork, GatewayMetrics metrics) {
        this.store = store;
        this.keys = keys;
        this.semantic = semantic;
        this.skipOptionalWork = skipOptionalWork;
        this.metrics = metrics;
    }

    @Override
    public void handle(Exchange x, Next next) {
        CacheableRequest c = x.get(CacheableRequest.KEY);
        if (c == null || !c.decision().write()) {
            next.proceed(x);
            return;
        }
        EntryAccess access = EntryAccess.of(x);
        AnswerCapture.Target base = new AnswerCapture.Target(store, c.key(), c.ttl(), c.tags(), access,
                RequestIds.gatewayId(x), c.storeFinishReasons());
        AnswerCapture.Target target = base.retarget((backend, model) -> keys.keyAnsweredBy(c, backend, model)
                .map(base::movedTo));
        RequestTrace trace = Traces.of(x);
        if (semantic != null && c.query() != null) {
            target = target.afterStore(entry -> {
                writeBack(c, entry, access, trace);
                c.stored(entry); // an exploration's comparison, when the semantic lookup left one
            });
        }
        SharedAnswer leading = x.get(CoalesceStage.LEADING);
        x.addTap(new AnswerCapture(target, MAX_ENTRY_BYTES, metrics, x.ticker(),
                leading == null ? outcome -> { } : leading::settle, x.get(AnswerScreen.KEY), trace, c.dialect()));
        next.proceed(x);
    }

    /** After the answer was stored (on the store's thread): file the request's vector in the semantic index. */
    private void writeBack(CacheableRequest c, CacheEntry entry, EntryAccess access, RequestTrace trace) {
        if (skipOptionalWork.getAsBoolean()) {
            semantic.metrics().writeBack("skipped"); // overload: the embedder's CPU is better spent elsewhere
            return;
        }
        semantic.fileAnswer(c.key().redisKey(), entry);
        StageSpan span = trace.start("cache.semantic.write");
        // A speculative call's answer may be stored before the lookup's embedding is done: it waits for that one.
        semantic.writeBack(c.query(), c.vector(), c.earlyVector(), c.key(), c.tags(), c.ttl(), access.declared(),
                        access.userDigest())
                .whenComplete((ok, error) -> {
                    if (error == null) {
                        span.end();
                    } else {
                        span.fail("index_error");
                    }
                });
    }
}
