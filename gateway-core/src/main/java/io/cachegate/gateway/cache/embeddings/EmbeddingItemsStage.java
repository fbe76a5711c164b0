package io.cachegate.gateway.cache.embeddings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.CacheControl;
import io.cachegate.cache.exact.CacheStore;
import io.cachegate.gateway.api.Endpoint;
import io.cachegate.gateway.api.OpenAiRequest;
import io.cachegate.gateway.cache.CacheKeys;
import io.cachegate.gateway.cache.CacheableRequest;
import io.cachegate.gateway.cache.EntryAccess;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.exchange.RequestIds;
import io.cachegate.gateway.exchange.Stage;
import io.cachegate.gateway.exchange.LookupStatus;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.cache.exact.BypassReason;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Embeddings batches cached per item. A request whose {@code input} is a list of strings or token arrays has every
 * distinct item looked up at once (one pipelined round trip to Redis); all found: the answer is made from the
 * cache; some or none: only the missing items go upstream, in a rewritten body with the same parameters, and the
 * backend's answer is merged back in the request's order ({@link ItemCapture}), its new vectors stored. The whole
 * request's key, the semantic cache and coalescing are not used for such a batch. A store that fails makes the
 * request a BYPASS, forwarded unchanged.
 */
public final class EmbeddingItemsStage implements Stage {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final CacheStore store;
    private final CacheKeys keys;
    private final GatewayMetrics metrics;
    private final Executor worker;

    /** Large batches are parsed and merged on the process's bounded {@link MergeWorkers}. */
    public EmbeddingItemsStage(CacheStore store, CacheKeys keys, GatewayMetrics metrics) {
        this(store, keys, metrics, MergeWorkers.pool());
    }

    /**
     * @param worker where large batches are parsed and merged (CPU only: megabytes of floats), off the event
     *               loop; a refusal makes the batch a bypass (before sending) or a 502 (after)
     */
    EmbeddingItemsStage(CacheStore store, CacheKeys keys, GatewayMetrics metrics, Executor worker) {
        this.store = store;
        this.keys = keys;
        this.metrics = metrics;
        this.worker = worker;
    }

    /** The entries found, sorted into usable items and misses; with the whole answer when every item is cached. */
    private record Sorted(ObjectNode[] cached, CacheEntry[] entries, int missing, byte[] hitBody) {

        static Sorted of(EmbeddingBatch batch, CacheEntry[] found, EntryAccess access, CacheControl control,
                         long nowMillis) {
            ObjectNode[] cached = new ObjectNode[batch.distinctCount()];
            CacheEntry[] entries = new CacheEntry[batch.distinctCount()];
            int missing = 0;
            for (int d = 0; d < found.length; d++) {
                CacheEntry entry = found[d];
                // As for a whole answer: a label this key does not hold, or older than Cache-Control allows, misses.
                if (entry != null && access.mayRead(entry) && control.accepts(nowMillis - entry.createdAtMillis())) {
                    cached[d] = EmbeddingAnswer.storedItem(entry);
                    entries[d] = cached[d] == null ? null : entry;
                }
                missing += cached[d] == null ? 1 : 0;
            }
            return new Sorted(cached, entries, missing,
                    missing == 0 ? EmbeddingAnswer.fromCache(batch, cached, entries) : null);
        }
    }

    @Override
    public void handle(Exchange x, Next next) {
        CacheableRequest c = x.get(CacheableRequest.KEY);
        OpenAiRequest parsed = x.parsed();
        if (c == null || parsed == null || parsed.endpoint() != Endpoint.EMBEDDINGS) {
            next.proceed(x);
            return;
        }
        ObjectNode parameters = withInput(parsed.body(), null);
        EmbeddingBatch batch = EmbeddingBatch.of(parsed.input(), item -> keys.itemKey(c, parameters, item));
        if (batch == null) {
            next.proceed(x); // one input, or not a list this stage splits: cached whole, as before
            return;
        }
        x.set(CacheableRequest.KEY, null); // the later cache stages are for whole requests
        EntryAccess access = EntryAccess.of(x);
        if (!c.decision().read()) {
            looked(x, c, batch, access, Sorted.of(batch, new CacheEntry[batch.distinctCount()], access, c.control(), 0),
                    0, next);
            return;
        }
        long t0 = x.ticker().nanos();
        store.getAll(batch.distinctKeys()).whenComplete((found, error) -> {
            CacheEntry[] entries = error != null ? null : found.stream().map(e -> e.orElse(null)).toArray(CacheEntry[]::new);
            if (entries == null || bytes(entries) <= ItemCapture.INLINE_BYTES) {
                x.resume(() -> sorted(x, c, batch, access, entries, t0, next));
                return;
            }
            try {
                // Reading back megabytes of stored floats is parsing: off the event loop, as the merge is.
                worker.execute(() -> {
                    Sorted sorted;
                    try {
                        sorted = Sorted.of(batch, entries, access, c.control(), x.ticker().wallMillis());
                    } catch (RuntimeException e) {
                        x.resume(() -> sorted(x, c, batch, access, null, t0, next)); // as a failed store: bypass
                        return;
                    }
                    x.resume(() -> looked(x, c, batch, access, sorted, lookedUp(x, t0), next));
                });
            } catch (RejectedExecutionException e) {
                x.resume(() -> sorted(x, c, batch, access, null, t0, next));
            }
        });
    }

    private static long bytes(CacheEntry[] entries) {
        long total = 0;
        for (CacheEntry entry : entries) {
            total += entry == null ? 0 : entry.body().length;
        }
        return total;
    }

    private long lookedUp(Exchange x, long t0) {
        long nanos = x.ticker().nanos() - t0;
        x.record().cacheLookup(t0, nanos);
        return nanos;
    }

    /** On the client's event loop: sorts what the store found (null when it failed) and goes on. */
    private void sorted(Exchange x, CacheableRequest c, EmbeddingBatch batch, EntryAccess access, CacheEntry[] found,
                        long t0, Next next) {
        long nanos = lookedUp(x, t0);
        if (x.isDone()) {
            return;
        }
        if (found == null) {
            // Fail open, as for a whole request: answered by the backend, unchanged, and nothing written.
            x.record().bypass(BypassReason.STORE_UNAVAILABLE);
            next.proceed(x);
            return;
        }
        looked(x, c, batch, access, Sorted.of(batch, found, access, c.control(), x.ticker().wallMillis()), nanos, next);
    }

    /** Continues on the client's event loop with the sorted entries: answers from the cache, or sends the rest. */
    private void looked(Exchange x, CacheableRequest c, EmbeddingBatch batch, EntryAccess access, Sorted sorted,
                        long lookupNanos, Next next) {
        if (x.isDone()) {
            return;
        }
        ObjectNode[] cached = sorted.cached();
        int missing = sorted.missing();
        int cachedPositions = 0;
        for (int i = 0; i < batch.size(); i++) {
            cachedPositions += cached[batch.distinctOf(i)] != null ? 1 : 0;
        }
        x.record().embeddingItems(cachedPositions, missing, batch.size() - cachedPositions - missing);
        x.record().exactLookup(missing == 0 ? LookupStatus.HIT : LookupStatus.MISS);
        x.responseHeader(GatewayHeaders.X_CACHE_ITEMS, cachedPositions + "/" + batch.size());
        if (missing == 0) {
            CachedBatchWriter.answer(x, batch, sorted.hitBody(), sorted.entries(), lookupNanos);
            return;
        }
        int[] sent = new int[missing];
        for (int d = 0, k = 0; d < cached.length; d++) {
            if (cached[d] == null) {
                sent[k++] = d;
            }
        }
        sendMissing(x, batch, sent);
        ItemWriter writer = c.decision().write() ? new ItemWriter(store, c.ttl(), c.tags(), access,
                RequestIds.gatewayId(x), x.ticker(), metrics) : null;
        ItemCapture capture = new ItemCapture(batch, cached, sorted.entries(), sent, writer, worker);
        x.addTap(capture);
        x.answer().rewrite(capture);
        x.xCache(cachedPositions > 0 ? GatewayHeaders.PARTIAL : GatewayHeaders.MISS);
        next.proceed(x);
    }

    /**
     * The request from here on asks for the {@code sent} items only, once each, with every other field as the
     * client wrote it. The backend is asked for an uncompressed answer: the gateway reads it to merge.
     */
    private static void sendMissing(Exchange x, EmbeddingBatch batch, int[] sent) {
        OpenAiRequest parsed = x.parsed();
        ArrayNode input = JSON.createArrayNode();
        for (int d : sent) {
            input.add(batch.distinctItem(d));
        }
        ObjectNode body = withInput(parsed.body(), input);
        byte[] bytes;
        try {
            bytes = JSON.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        FullHttpRequest rewritten = x.request().replace(Unpooled.wrappedBuffer(bytes));
        rewritten.headers().remove(HttpHeaderNames.ACCEPT_ENCODING).setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
        x.replaceRequest(rewritten);
        x.parsed(new OpenAiRequest(parsed.endpoint(), parsed.model(), input, parsed.sampling(), parsed.stream(),
                parsed.includeUsage(), body));
    }

    /** {@code body}'s fields in their order, its input replaced by {@code input} (left out when null); not copied. */
    private static ObjectNode withInput(ObjectNode body, JsonNode input) {
        ObjectNode out = JSON.createObjectNode();
        for (Map.Entry<String, JsonNode> field : body.properties()) {
            if (!field.getKey().equals("input")) {
                out.set(field.getKey(), field.getValue());
            } else if (input != null) {
                out.set("input", input);
            }
        }
        return out;
    }
}
