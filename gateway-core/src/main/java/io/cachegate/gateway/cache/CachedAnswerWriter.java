package io.cachegate.gateway.cache;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.SseReplay;
import io.cachegate.gateway.proxy.GatewayHeaders;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpResponse;
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
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Answers a request from a cache entry: the stored JSON as it is, or, for {@code stream: true},
 * replayed as Server-Sent Events in the OpenAI chunk format. The {@code id} and {@code created}
 * are those of the stored answer, so a client can tell a replay from a fresh generation.
 */
final class CachedAnswerWriter {

    private static final ObjectMapper JSON = new ObjectMapper();
    static final AsciiString X_CACHE_ORIGIN = AsciiString.cached("x-cache-origin-request-id");
    private static final AsciiString EXACT = AsciiString.cached("exact");
    private static final AsciiString SEMANTIC = AsciiString.cached("semantic");
    // Every header name set here is one of our constants: checking them on each hit is wasted work.
    // Values (request ids from clients among them) are still validated.
    private static final HttpHeadersFactory HEADERS = DefaultHttpHeadersFactory.headersFactory().withNameValidation(false);

    private CachedAnswerWriter() {
    }

    /** The SSE events that replay {@code entry}, or empty when it cannot be replayed (the caller treats that as a miss). */
    static Optional<List<byte[]>> replay(CacheEntry entry, boolean includeUsage) {
        try {
            JsonNode document = JSON.readTree(entry.body());
            return SseReplay.canReplay(document) ? Optional.of(SseReplay.events(document, includeUsage)) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Writes the hit: the stored JSON, or the given replay events as an SSE stream. */
    static void write(ChannelHandlerContext ctx, CacheEntry entry, Optional<List<byte[]>> sseEvents,
                      String requestId, boolean keepAlive, long startNanos, long lookupNanos, SemanticHit semantic) {
        StringBuilder timing = new StringBuilder(64);
        if (semantic != null) {
            GatewayHeaders.appendTiming(timing, "embed", semantic.embedNanos());
            GatewayHeaders.appendTiming(timing, "search", semantic.searchNanos());
        }
        GatewayHeaders.appendTiming(timing, "cache", lookupNanos);
        GatewayHeaders.appendTiming(timing, "total", System.nanoTime() - startNanos);
        if (sseEvents.isEmpty()) {
            DefaultFullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                    Unpooled.wrappedBuffer(entry.body()), HEADERS, DefaultHttpHeadersFactory.trailersFactory());
            headers(response.headers(), entry, semantic, requestId, keepAlive, timing)
                    .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                    .setInt(HttpHeaderNames.CONTENT_LENGTH, entry.body().length);
            close(ctx.writeAndFlush(response), keepAlive);
            return;
        }
        List<byte[]> events = sseEvents.get();
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, HEADERS);
        headers(head.headers(), entry, semantic, requestId, keepAlive, timing)
                .set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8")
                .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
        HttpUtil.setTransferEncodingChunked(head, true);
        ctx.write(head);
        // The whole replay is at most one stored entry, bounded by the store's entry size.
        for (byte[] event : events) {
            ctx.write(new DefaultHttpContent(Unpooled.wrappedBuffer(event)));
        }
        close(ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT), keepAlive);
    }

    private static HttpHeaders headers(HttpHeaders headers, CacheEntry entry, SemanticHit semantic, String requestId,
                                       boolean keepAlive, CharSequence timing) {
        headers.set(GatewayHeaders.X_REQUEST_ID, requestId)
                .set(GatewayHeaders.X_CACHE, GatewayHeaders.HIT)
                .set(GatewayHeaders.X_CACHE_LAYER, semantic == null ? EXACT : SEMANTIC)
                .set(HttpHeaderNames.AGE, Long.toString(entry.ageSeconds(System.currentTimeMillis())))
                .set(X_CACHE_ORIGIN, entry.originRequestId())
                .set(GatewayHeaders.SERVER_TIMING, timing);
        if (semantic != null) {
            headers.set(GatewayHeaders.X_CACHE_SIMILARITY, String.format(Locale.ROOT, "%.4f", semantic.similarity()));
        }
        if (!keepAlive) {
            headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        return headers;
    }

    private static void close(ChannelFuture future, boolean keepAlive) {
        future.addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess() || !keepAlive) {
                f.channel().close();
            }
        });
    }
}
