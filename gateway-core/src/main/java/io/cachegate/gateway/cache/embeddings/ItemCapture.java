package io.cachegate.gateway.cache.embeddings;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.gateway.exchange.BodyRewrite;
import io.cachegate.gateway.exchange.ResponseTap;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpResponse;
import java.io.ByteArrayOutputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Reads the backend's answer to the missing items of a batch (bounded), merges it with the cached items for the
 * client ({@link BodyRewrite} writes the merged body) and has the new vectors stored. Nothing is stored from an
 * error, an incomplete answer, one that does not fit the items sent, or one from a fallback model; a fallback's
 * vectors are never merged with cached ones either (two models' vectors do not mix).
 */
final class ItemCapture implements ResponseTap, BodyRewrite.Rewriter {

    /** The largest backend answer merged: 2048 items of 1536 floats as JSON text fit, with room to spare. */
    static final int MAX_ANSWER_BYTES = 96 * 1024 * 1024;
    /** Smaller answers are merged on the event loop: parsing them costs less than the hop. */
    static final int INLINE_BYTES = 256 * 1024;

    private final EmbeddingBatch batch;
    private final ObjectNode[] cached;
    private final CacheEntry[] entries;
    private final int[] sent;
    private final ItemWriter writer;
    private ByteArrayOutputStream body;
    private boolean abandoned;
    private boolean fellBack;
    private final Executor worker;
    private final CompletableFuture<byte[]> merged = new CompletableFuture<>();
    private volatile String failure = "The backend's embeddings answer was incomplete";

    /**
     * @param cached each distinct item's stored item, null for the ones sent
     * @param sent the distinct items sent upstream, in the order of the rewritten input
     * @param writer stores the new vectors; null when the request may not write the cache
     * @param worker where an answer larger than {@value #INLINE_BYTES} bytes is merged, off the event loop
     */
    ItemCapture(EmbeddingBatch batch, ObjectNode[] cached, CacheEntry[] entries, int[] sent,
                ItemWriter writer, Executor worker) {
        this.worker = worker;
        this.batch = batch;
        this.cached = cached;
        this.entries = entries;
        this.sent = sent;
        this.writer = writer;
    }

    @Override
    public void onHead(HttpResponse head) {
        if (head.status().code() == 200) {
            body = new ByteArrayOutputStream(64 * 1024);
        } else {
            abandoned = true; // an error passes through as it came, and nothing is stored
        }
    }

    @Override
    public void onContent(ByteBuf content) {
        if (abandoned || body == null) {
            return;
        }
        if (body.size() + content.readableBytes() > MAX_ANSWER_BYTES) {
            abandoned = true;
            body = null;
            failure = "The backend's embeddings answer exceeds " + (MAX_ANSWER_BYTES >> 20)
                    + " MiB, more than the gateway merges; send smaller batches";
            return;
        }
        byte[] bytes = new byte[content.readableBytes()];
        content.getBytes(content.readerIndex(), bytes);
        body.write(bytes, 0, bytes.length);
    }

    @Override
    public void onComplete() {
        if (abandoned || body == null) {
            merged.complete(null);
            return;
        }
        if (fellBack && sent.length < batch.distinctCount()) {
            failure = "The missing items were embedded by the route's fallback model, whose vectors cannot be merged"
                    + " with the cached ones; retry the request";
            merged.complete(null);
            return;
        }
        byte[] answer = body.toByteArray();
        body = null;
        if (answer.length <= INLINE_BYTES) {
            try {
                merged.complete(merge(answer));
            } catch (RuntimeException e) {
                merged.complete(null); // the client gets the 502; the relay must never wait on this
            }
            return;
        }
        // Parsing and writing tens of megabytes of floats takes seconds: never on the event loop.
        try {
            CompletableFuture.supplyAsync(() -> merge(answer), worker).whenComplete((bytes, error) ->
                    merged.complete(error == null ? bytes : null));
        } catch (RejectedExecutionException e) {
            failure = "The gateway is too busy to merge the embeddings answer; retry the request";
            merged.complete(null);
        }
    }

    /** The merged body, the new vectors handed to the writer; null (with {@link #failure}) when it cannot merge. */
    private byte[] merge(byte[] answer) {
        try {
            EmbeddingAnswer.Merged result = EmbeddingAnswer.merge(answer, batch, cached, entries, sent);
            if (writer != null && !fellBack) {
                writer.store(batch, result);
            }
            return result.body();
        } catch (EmbeddingAnswer.MergeException e) {
            failure = "The backend's embeddings answer could not be merged with the cached items: " + e.getMessage();
            return null;
        }
    }

    @Override
    public void onAbort() {
        abandoned = true;
        body = null;
        merged.complete(null);
    }

    @Override
    public void onFallback(String backend, String model) {
        fellBack = true;
    }

    @Override
    public CompletableFuture<byte[]> body() {
        return merged;
    }

    @Override
    public String failure() {
        return failure;
    }
}
