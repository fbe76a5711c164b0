package io.cachegate.gateway.cache.capture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cachegate.cache.exact.AnswerAssembler;
import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.CacheKey;
import io.cachegate.cache.exact.Dialect;
import io.cachegate.cache.exact.CacheStore;
import io.cachegate.cache.exact.StorePolicy;
import io.cachegate.config.Ticker;
import io.cachegate.gateway.cache.AnswerScreen;
import io.cachegate.gateway.cache.EntryAccess;
import io.cachegate.gateway.cache.StoreWrites;
import io.cachegate.gateway.cache.coalesce.SharedAnswer.Outcome;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.ResponseTap;
import io.cachegate.gateway.telemetry.trace.RequestTrace;
import io.cachegate.gateway.telemetry.trace.StageSpan;
import io.cachegate.gateway.telemetry.trace.Traces;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Assembles the answer being relayed (a JSON body, or an SSE stream turned into the equivalent
 * JSON document) and, if it is complete and successful, writes it to the store asynchronously.
 * Bounded: an answer over {@code maxBytes} is not stored. A cancelled or failed answer never is.
 * {@code onSettled} runs once, told the outcome, when the answer is known not to be stored or its write has ended.
 */
final class AnswerCapture implements ResponseTap {

    private static final Logger log = LoggerFactory.getLogger(AnswerCapture.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * What the entry is filed under and with.
     *
     * @param access the labels the entry is written with and the end user it is written for
     * @param originId the gateway's own id of the request whose answer this is ({@link
     *                 io.cachegate.gateway.exchange.RequestIds#gatewayId}), stored as the entry's origin and shown
     *                 to every later hit; never the client's {@code X-Request-Id}, which is the client's own
     * @param afterStore runs with the entry once it was written (on the store's thread): the semantic write-back
     * @param retarget the target for an answer from a fallback (backend, model): its own key, or empty when it
     *                 cannot be keyed (its model version is unknown) and is not stored
     * @param staleFor how long past its TTL the entry may still answer (the longer of {@code stale_if_error} and
     *                 {@code stale_while_revalidate}; zero: never); the store keeps it that much longer
     */
    record Target(CacheStore store, CacheKey key, Duration ttl, Set<String> tags, EntryAccess access,
                  String originId, Set<String> storeFinishReasons, Consumer<CacheEntry> afterStore,
                  BiFunction<String, String, Optional<Target>> retarget, Duration staleFor) {

        Target(CacheStore store, CacheKey key, Duration ttl, Set<String> tags, EntryAccess access, String originId,
               Set<String> storeFinishReasons) {
            this(store, key, ttl, tags, access, originId, storeFinishReasons, Duration.ZERO);
        }

        Target(CacheStore store, CacheKey key, Duration ttl, Set<String> tags, EntryAccess access, String originId,
               Set<String> storeFinishReasons, Duration staleFor) {
            this(store, key, ttl, tags, access, originId, storeFinishReasons, e -> { }, (b, m) -> Optional.empty(),
                    staleFor);
        }

        Target afterStore(Consumer<CacheEntry> action) {
            return new Target(store, key, ttl, tags, access, originId, storeFinishReasons, action, retarget, staleFor);
        }

        Target retarget(BiFunction<String, String, Optional<Target>> function) {
            return new Target(store, key, ttl, tags, access, originId, storeFinishReasons, afterStore, function,
                    staleFor);
        }

        /** The same answer filed under {@code other}: no semantic write-back; {@link #onFallback} keeps retargeting. */
        Target movedTo(CacheKey other) {
            return new Target(store, other, ttl, tags, access, originId, storeFinishReasons, e -> { },
                    (b, m) -> Optional.empty(), staleFor);
        }

        /** The entry as stored: marked with its TTL when it is kept past it to answer stale. */
        CacheEntry stored(CacheEntry entry) {
            return staleFor.isZero() ? entry : entry.freshFor(ttl.toMillis());
        }

        /** How long the store keeps the entry: its TTL and the stale window after it. */
        Duration kept() {
            return ttl.plus(staleFor);
        }
    }

    private Target target;
    private final long maxBytes;
    private final GatewayMetrics metrics;
    private final Ticker ticker;
    private final Consumer<Outcome> onSettled;
    /** The sensitive-data check of the answer, or null when it is stored as it is. */
    private final AnswerScreen screen;
    /** The trace of the request whose answer this is: the write's span, and the origin stored with the entry. */
    private final RequestTrace trace;
    private int status;
    /** Which stream format a streamed answer comes in. */
    private final Dialect dialect;
    private AnswerAssembler assembler;
    private ByteArrayOutputStream body;
    private boolean abandoned;

    /** The capture of {@code x}'s answer: traced by its request, screened by its sensitive-data rule. */
    static AnswerCapture of(Exchange x, Target target, long maxBytes, GatewayMetrics metrics,
                            Consumer<Outcome> onSettled, Dialect dialect) {
        return new AnswerCapture(target, maxBytes, metrics, x.ticker(), onSettled, x.get(AnswerScreen.KEY),
                Traces.of(x), dialect);
    }

    AnswerCapture(Target target, long maxBytes, GatewayMetrics metrics, Ticker ticker, Consumer<Outcome> onSettled) {
        this(target, maxBytes, metrics, ticker, onSettled, null, RequestTrace.OFF, Dialect.CHAT);
    }

    AnswerCapture(Target target, long maxBytes, GatewayMetrics metrics, Ticker ticker, Consumer<Outcome> onSettled,
                  AnswerScreen screen, RequestTrace trace) {
        this(target, maxBytes, metrics, ticker, onSettled, screen, trace, Dialect.CHAT);
    }

    /** @param dialect the API of the answer: its stream is read by the dialect's assembler */
    AnswerCapture(Target target, long maxBytes, GatewayMetrics metrics, Ticker ticker, Consumer<Outcome> onSettled,
                  AnswerScreen screen, RequestTrace trace, Dialect dialect) {
        this.dialect = dialect;
        this.screen = screen;
        this.trace = trace;
        this.target = target;
        this.ticker = ticker;
        this.maxBytes = maxBytes;
        this.metrics = metrics;
        this.onSettled = onSettled;
    }

    @Override
    public void onHead(HttpResponse head) {
        status = head.status().code();
        if (status != 200) {
            abandoned = true;
            return;
        }
        String type = head.headers().get(HttpHeaderNames.CONTENT_TYPE, "");
        if (type.startsWith("text/event-stream")) {
            assembler = dialect.assembler((int) Math.min(Integer.MAX_VALUE, maxBytes));
        } else {
            body = new ByteArrayOutputStream(1024);
        }
    }

    @Override
    public void onContent(ByteBuf content) {
        if (abandoned || !content.isReadable()) {
            return;
        }
        byte[] bytes = new byte[content.readableBytes()];
        content.getBytes(content.readerIndex(), bytes);
        if (assembler != null) {
            assembler.feed(bytes, 0, bytes.length);
        } else if (body.size() + bytes.length > maxBytes) {
            abandoned = true;
            body = null;
        } else {
            body.write(bytes, 0, bytes.length);
        }
    }

    @Override
    public void onComplete() {
        Outcome settled = store();
        if (settled != null) {
            onSettled.accept(settled);
        }
    }

    /** Starts the write when the answer is storable (null: the write settles it); else how it settled. */
    private Outcome store() {
        if (abandoned) {
            return Outcome.NOT_STORED;
        }
        Optional<byte[]> document = assembler != null ? assembler.completeDocument() : Optional.of(body.toByteArray());
        if (document.isEmpty()) {
            return Outcome.NOT_STORED;
        }
        JsonNode parsed;
        try {
            parsed = JSON.readTree(document.get());
        } catch (IOException e) {
            return Outcome.NOT_STORED;
        }
        if (parsed == null || !StorePolicy.storable(status, parsed, target.storeFinishReasons())) {
            return Outcome.NOT_STORED;
        }
        AnswerScreen.Verdict verdict = screen == null ? AnswerScreen.Verdict.STORE : screen.check(parsed);
        if (verdict == AnswerScreen.Verdict.DROP) {
            return Outcome.NOT_STORED;
        }
        Consumer<CacheEntry> afterStore = verdict == AnswerScreen.Verdict.STORE ? target.afterStore() : e -> { };
        JsonNode usage = parsed.path("usage");
        CacheEntry entry = target.stored(new CacheEntry(document.get(), ticker.wallMillis(),
                target.key().modelVersion(), target.originId(), (int) dialect.promptTokens(usage),
                (int) dialect.completionTokens(usage), target.tags(), target.access().declared(),
                target.access().userDigest(), trace.origin()));
        StageSpan span = trace.start("cache.write");
        StoreWrites.put(target.store(), target.key(), entry, target.kept(), metrics).whenComplete((ok, error) -> {
            if (error == null) {
                span.end();
                afterStore.accept(entry);
            } else {
                span.fail("store_error");
                log.debug("request {}: cache write failed: {}", target.originId(), error.toString());
            }
            onSettled.accept(error == null ? Outcome.STORED : Outcome.WRITE_FAILED);
        });
        return null;
    }

    @Override
    public void onFallback(String backend, String model) {
        Optional<Target> moved = target.retarget().apply(backend, model);
        if (moved.isPresent()) {
            // Keyed from the request each time: a later hop of the chain files the answer under its own model.
            target = moved.get().retarget(target.retarget());
        } else {
            abandoned = true;
        }
    }

    @Override
    public void onAbort() {
        abandoned = true;
        body = null;
        assembler = null;
        onSettled.accept(Outcome.NOT_STORED);
    }
}
