package io.cachegate.gateway.cache.capture;

import io.cachegate.cache.exact.CacheStore;
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
    private final SemanticWriteBack writeBack;
    private final GatewayMetrics metrics;

    /**
     * @param semantic the semantic cache the write-back files vectors in, or null
     * @param skipOptionalWork true while admission control is in overload mode: the semantic write-back waits
     */
    public CaptureStage(CacheStore store, CacheKeys keys, SemanticCache semantic,
                        BooleanSupplier skipOptionalWork, GatewayMetrics metrics) {
        this.store = store;
        this.keys = keys;
        this.writeBack = semantic == null ? null : new SemanticWriteBack(semantic, skipOptionalWork);
        this.metrics = metrics;
    }

    /** A tap only: a hit drops it with the call it would have stored. */
    @Override
    public boolean tentative() {
        return true;
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
                RequestIds.gatewayId(x), c.storeFinishReasons(), c.staleKeep());
        AnswerCapture.Target target = base.retarget((backend, model) -> keys.keyAnsweredBy(c, backend, model)
                .map(base::movedTo));
        if (writeBack != null && c.query() != null) {
            target = target.afterStore(writeBack.after(x, c, access));
        }
        SharedAnswer leading = x.get(CoalesceStage.LEADING);
        x.addTap(AnswerCapture.of(x, target, MAX_ENTRY_BYTES, metrics,
                leading == null ? outcome -> { } : leading::settle, c.dialect()));
        next.proceed(x);
    }
}
