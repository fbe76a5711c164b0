package io.cachegate.gateway.cache.capture;

import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.gateway.cache.CacheableRequest;
import io.cachegate.gateway.cache.EntryAccess;
import io.cachegate.gateway.cache.semantic.SemanticCache;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.telemetry.trace.RequestTrace;
import io.cachegate.gateway.telemetry.trace.StageSpan;
import io.cachegate.gateway.telemetry.trace.Traces;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Files a stored answer's request vector in the semantic index, after the exact write landed, traced as
 * {@code cache.semantic.write}; skipped while admission control is in overload mode (the embedder's CPU is better
 * spent elsewhere).
 */
final class SemanticWriteBack {

    private final SemanticCache semantic;
    private final BooleanSupplier skipOptionalWork;

    SemanticWriteBack(SemanticCache semantic, BooleanSupplier skipOptionalWork) {
        this.semantic = semantic;
        this.skipOptionalWork = skipOptionalWork;
    }

    /** What runs once {@code x}'s answer is stored (on the store's thread). */
    Consumer<CacheEntry> after(Exchange x, CacheableRequest c, EntryAccess access) {
        RequestTrace trace = Traces.of(x); // read now, on the loop: the exchange is done by the time it runs
        return entry -> {
            file(c, entry, access, trace);
            c.stored(entry); // an exploration's comparison, when the semantic lookup left one
        };
    }

    private void file(CacheableRequest c, CacheEntry entry, EntryAccess access, RequestTrace trace) {
        if (skipOptionalWork.getAsBoolean()) {
            semantic.metrics().writeBack("skipped");
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
