package io.cachegate.gateway.cache.semantic;

import io.cachegate.gateway.cache.CacheableRequest;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.Stage;

/**
 * {@code cache.semantic.embed_early}: starts embedding the request's text before the exact lookup, so a semantic
 * lookup after an exact miss waits only for what is left of it. The exact stage cancels it on a hit (the embedder
 * skips it while still queued; a batch that took it already spends the model time). Only where the semantic stage
 * would embed: a query, a read allowed, lookups not ended.
 */
public final class EarlyEmbedStage implements Stage {

    private final SemanticCache semantic;

    public EarlyEmbedStage(SemanticCache semantic) {
        this.semantic = semantic;
    }

    @Override
    public void handle(Exchange x, Next next) {
        CacheableRequest c = x.get(CacheableRequest.KEY);
        if (c != null && c.query() != null && !c.lookupsDone() && c.decision().read()) {
            c.earlyVector(semantic.embedEarly(c.query().text()));
        }
        next.proceed(x);
    }
}
