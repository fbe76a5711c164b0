package io.cachegate.gateway.cache.embeddings;

import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.gateway.exchange.Answer;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

/**
 * Answers a batch whose every item is cached: an exact hit made of several entries. {@code Age} is the oldest
 * item's; the origin request named is the first item's (each item may come from another request).
 */
final class CachedBatchWriter {

    private CachedBatchWriter() {
    }

    /** Answers {@code x} with {@code body} ({@link EmbeddingAnswer#fromCache}) made of {@code entries}; finishes it. */
    static void answer(Exchange x, EmbeddingBatch batch, byte[] body, CacheEntry[] entries, long lookupNanos) {
        long nowMillis = x.ticker().wallMillis();
        long oldest = nowMillis;
        int tokens = 0;
        for (int i = 0; i < batch.size(); i++) {
            CacheEntry entry = entries[batch.distinctOf(i)];
            oldest = Math.min(oldest, entry.createdAtMillis());
            tokens += entry.promptTokens();
        }
        CacheEntry first = entries[batch.distinctOf(0)];
        x.xCache(GatewayHeaders.HIT);
        x.record().hit("exact", Double.NaN, first.originRequestId(), Math.max(0, nowMillis - oldest), tokens, 0, null);
        StringBuilder timing = new StringBuilder(48);
        GatewayHeaders.appendTiming(timing, "cache", lookupNanos);
        GatewayHeaders.appendTiming(timing, "total", x.elapsedNanos());
        DefaultFullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.wrappedBuffer(body));
        HttpHeaders headers = response.headers()
                .set(GatewayHeaders.X_REQUEST_ID, x.requestId())
                .set(GatewayHeaders.X_CACHE, GatewayHeaders.HIT)
                .set(GatewayHeaders.X_CACHE_LAYER, "exact")
                .set(HttpHeaderNames.AGE, Long.toString(Math.max(0, (nowMillis - oldest) / 1000)))
                .set(GatewayHeaders.X_CACHE_ORIGIN_REQUEST_ID, first.originRequestId())
                .set(GatewayHeaders.SERVER_TIMING, timing)
                .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        if (!x.keepAlive()) {
            headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        x.answer().whole(response, Answer.Source.CACHE);
    }
}
