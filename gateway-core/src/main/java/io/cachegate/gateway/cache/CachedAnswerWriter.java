package io.cachegate.gateway.cache;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.Dialect;
import io.cachegate.gateway.api.OpenAiRequest;
import io.cachegate.gateway.exchange.Answer;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.exchange.HeaderBlock;
import io.cachegate.gateway.exchange.LookupStatus;
import io.cachegate.gateway.exchange.TemplatedHeaders;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Optional;

/**
 * Answers a request from a cache entry: the stored JSON as it is, or, for {@code stream: true},
 * replayed as Server-Sent Events in the OpenAI chunk format (the Responses API's event format for a stored
 * response). The {@code id} and {@code created} (a response's {@code created_at}) are those of the stored answer,
 * so a client can tell a replay from a fresh generation.
 */
public final class CachedAnswerWriter {

    /** The reason a stale answer served while its entry is refreshed gives (header, metrics, access log). */
    public static final String REVALIDATING = "revalidating";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AsciiString EXACT = AsciiString.cached("exact");
    private static final AsciiString SEMANTIC = AsciiString.cached("semantic");
    // Every header name set here is one of our constants: checking them on each hit is wasted work.
    // Values (request ids from clients among them) are still validated.
    private static final HttpHeadersFactory HEADERS = DefaultHttpHeadersFactory.headersFactory().withNameValidation(false);

    /**
     * The shared headers of recent hits, encoded once ({@link TemplatedHeaders}). What a block holds is a function
     * of its key alone, so two entries with the same key share a block correctly; bounded, as hits on many entries
     * only rebuild what falls out.
     */
    private static final Cache<BlockKey, HeaderBlock> BLOCKS = Caffeine.newBuilder().maximumSize(4_096)
            .executor(Runnable::run) // its upkeep on the hit's loop, not a wake-up of the common ForkJoinPool
            .build();

    /** {@code xCache} too: a stale answer on an entry never shares the block of a hit on it. */
    private record BlockKey(AsciiString xCache, AsciiString layer, int length, String originRequestId) {
    }

    private CachedAnswerWriter() {
    }

    /**
     * Answers {@code x} from {@code entry} and finishes it; false (nothing written, the caller goes on as a miss)
     * when the client asked for a stream and the entry cannot be replayed as one.
     *
     * @param semantic the similarity and timings of a semantic hit; null for an exact hit
     */
    public static boolean answer(Exchange x, CacheEntry entry, long lookupNanos, SemanticHit semantic) {
        String layer = semantic == null ? "exact" : "semantic";
        Optional<List<byte[]>> events = Optional.empty();
        if (x.parsed().stream()) {
            events = replay(x.parsed().endpoint().dialect(), entry, x.parsed().includeUsage());
            if (events.isEmpty()) {
                if (semantic == null) {
                    x.record().exactLookup(LookupStatus.MISS);
                } else {
                    x.record().semanticLookup(LookupStatus.MISS);
                }
                return false;
            }
        }
        x.xCache(GatewayHeaders.HIT);
        long totalNanos = x.elapsedNanos();
        long nowMillis = x.ticker().wallMillis();
        x.record().hit(layer, semantic == null ? Double.NaN : semantic.similarity(), entry.originRequestId(),
                Math.max(0, nowMillis - entry.createdAtMillis()), entry.promptTokens(), entry.completionTokens(),
                entry.originSpan()); // the trace links the request whose answer this is
        write(x.answer(), entry, events, x.requestId(), x.keepAlive(), totalNanos, nowMillis, lookupNanos, semantic,
                GatewayHeaders.HIT);
        return true;
    }

    /**
     * Answers {@code x} from {@code entry}, an exact entry past its TTL, because the backend could not ({@code
     * stale_if_error}), and finishes it: {@code X-Cache: STALE}, its {@code Age}, and {@code X-Cache-Stale} saying why
     * and how far past its TTL. The answer's taps are told first that the backend's answer will not come, so the
     * stale answer is never stored again nor shared as a fresh one. False (nothing written) when the client asked
     * for a stream and the entry cannot be replayed as one.
     *
     * @param cause why the backend could not answer (see {@code ErrorKind.outage})
     */
    public static boolean stale(Exchange x, CacheEntry entry, long lookupNanos, String cause, long pastTtlMillis) {
        return stale(x, entry, lookupNanos, "if-error", cause, pastTtlMillis);
    }

    /**
     * Answers {@code x} from {@code entry}, an exact entry past its TTL, at once while one background call refreshes
     * it ({@code stale_while_revalidate}): as {@link #stale(Exchange, CacheEntry, long, String, long)}, with {@code
     * X-Cache-Stale: while-revalidate; reason=revalidating; past-ttl=N}.
     */
    public static boolean revalidating(Exchange x, CacheEntry entry, long lookupNanos, long pastTtlMillis) {
        return stale(x, entry, lookupNanos, "while-revalidate", REVALIDATING, pastTtlMillis);
    }

    private static boolean stale(Exchange x, CacheEntry entry, long lookupNanos, String directive, String cause,
                                 long pastTtlMillis) {
        Optional<List<byte[]>> events = Optional.empty();
        if (x.parsed().stream()) {
            events = replay(x.parsed().endpoint().dialect(), entry, x.parsed().includeUsage());
            if (events.isEmpty()) {
                return false;
            }
        }
        x.answer().abort();
        x.xCache(GatewayHeaders.STALE);
        long nowMillis = x.ticker().wallMillis();
        x.record().stale(cause, entry.originRequestId(), Math.max(0, nowMillis - entry.createdAtMillis()),
                entry.promptTokens(), entry.completionTokens(), entry.originSpan());
        x.responseHeader(GatewayHeaders.X_CACHE_STALE, directive + "; reason=" + cause + "; past-ttl="
                + Math.max(0, pastTtlMillis / 1000));
        write(x.answer(), entry, events, x.requestId(), x.keepAlive(), x.elapsedNanos(), nowMillis, lookupNanos,
                null, GatewayHeaders.STALE);
        return true;
    }

    /** Whether {@link #answer} would answer {@code x} from {@code entry} (a stream needs a replayable entry). */
    public static boolean canAnswer(Exchange x, CacheEntry entry) {
        OpenAiRequest parsed = x.parsed();
        return !parsed.stream() || replay(parsed.endpoint().dialect(), entry, parsed.includeUsage()).isPresent();
    }

    /** The SSE events that replay {@code entry} in the stream format of {@code dialect}, or empty when it cannot be. */
    static Optional<List<byte[]>> replay(Dialect dialect, CacheEntry entry, boolean includeUsage) {
        try {
            JsonNode document = JSON.readTree(entry.body());
            return dialect.replay(document, includeUsage);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * Writes the hit (or stale answer: {@code xCache}), which finishes the exchange: the stored JSON, or the given
     * replay events as an SSE stream.
     */
    private static void write(Answer answer, CacheEntry entry, Optional<List<byte[]>> sseEvents,
                              String requestId, boolean keepAlive, long totalNanos, long nowMillis, long lookupNanos,
                              SemanticHit semantic, AsciiString xCache) {
        StringBuilder timing = new StringBuilder(64);
        if (semantic != null) {
            GatewayHeaders.appendTiming(timing, "embed", semantic.embedNanos());
            GatewayHeaders.appendTiming(timing, "search", semantic.searchNanos());
        }
        GatewayHeaders.appendTiming(timing, "cache", lookupNanos);
        GatewayHeaders.appendTiming(timing, "total", totalNanos);
        AsciiString layer = semantic == null ? EXACT : SEMANTIC;
        if (sseEvents.isEmpty()) {
            answer.whole(json(entry, semantic, requestId, keepAlive, timing, nowMillis, xCache), Answer.Source.CACHE);
            return;
        }
        List<byte[]> events = sseEvents.get();
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, HEADERS);
        varying(head.headers(), entry, semantic, requestId, keepAlive, timing, nowMillis)
                .set(GatewayHeaders.X_CACHE, xCache)
                .set(GatewayHeaders.X_CACHE_LAYER, layer)
                .set(GatewayHeaders.X_CACHE_ORIGIN_REQUEST_ID, entry.originRequestId())
                .set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8")
                .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
        HttpUtil.setTransferEncodingChunked(head, true);
        answer.head(head, Answer.Source.CACHE);
        // The whole replay is at most one stored entry, bounded by the store's entry size.
        for (byte[] event : events) {
            answer.content(new DefaultHttpContent(Unpooled.wrappedBuffer(event)));
        }
        answer.end(LastHttpContent.EMPTY_LAST_CONTENT);
    }

    /**
     * A hit's answer with the stored JSON: the headers every hit on the entry shares are one encoded block
     * ({@link #BLOCKS}), only this hit's own are set here. Public for the benchmark that measures it.
     *
     * @param timing the {@code Server-Timing} value
     */
    public static FullHttpResponse json(CacheEntry entry, SemanticHit semantic, String requestId, boolean keepAlive,
                                        CharSequence timing, long nowMillis) {
        return json(entry, semantic, requestId, keepAlive, timing, nowMillis, GatewayHeaders.HIT);
    }

    private static FullHttpResponse json(CacheEntry entry, SemanticHit semantic, String requestId, boolean keepAlive,
                                         CharSequence timing, long nowMillis, AsciiString xCache) {
        HeaderBlock shared = BLOCKS.get(new BlockKey(xCache, semantic == null ? EXACT : SEMANTIC,
                entry.body().length, entry.originRequestId()), CachedAnswerWriter::block);
        HttpHeaders headers = new TemplatedHeaders(shared, HEADERS.newHeaders());
        varying(headers, entry, semantic, requestId, keepAlive, timing, nowMillis);
        // No trailers on a whole answer: the shared empty set instead of one per hit.
        return new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.wrappedBuffer(entry.body()), headers, EmptyHttpHeaders.INSTANCE);
    }

    /** The headers a hit on a stored JSON answer shares with every other hit on it: {@link #BLOCKS}. */
    private static HeaderBlock block(BlockKey key) {
        Map<AsciiString, CharSequence> shared = new LinkedHashMap<>();
        shared.put(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        shared.put(HttpHeaderNames.CONTENT_LENGTH, Integer.toString(key.length()));
        shared.put(GatewayHeaders.X_CACHE, key.xCache());
        shared.put(GatewayHeaders.X_CACHE_LAYER, key.layer());
        shared.put(GatewayHeaders.X_CACHE_ORIGIN_REQUEST_ID, key.originRequestId());
        return HeaderBlock.of(shared);
    }

    /** The headers of this hit alone. */
    private static HttpHeaders varying(HttpHeaders headers, CacheEntry entry, SemanticHit semantic, String requestId,
                                       boolean keepAlive, CharSequence timing, long nowMillis) {
        headers.set(GatewayHeaders.X_REQUEST_ID, requestId)
                .set(HttpHeaderNames.AGE, Long.toString(entry.ageSeconds(nowMillis)))
                .set(GatewayHeaders.SERVER_TIMING, timing);
        if (semantic != null) {
            headers.set(GatewayHeaders.X_CACHE_SIMILARITY, String.format(Locale.ROOT, "%.4f", semantic.similarity()));
        }
        if (!keepAlive) {
            headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        return headers;
    }
}
