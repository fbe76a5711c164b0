package io.cachegate.gateway.cache;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.cache.exact.CacheControl;
import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.CacheDecision;
import io.cachegate.cache.exact.CacheKey;
import io.cachegate.cache.exact.Dialect;
import io.cachegate.cache.exact.RouteCachePolicy;
import io.cachegate.gateway.exchange.Exchange;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * What the cache stages know of a request that may use the cache: its key and what the client allows, what its
 * answer is filed with, and (when it is matched semantically) its query, set by {@link CacheKeyStage} and read by
 * the stages after it. The semantic stage adds the query's vector, which the write-back reuses, and what runs once
 * the answer is stored (an exploration's comparison).
 */
public final class CacheableRequest {

    public static final Exchange.Key<CacheableRequest> KEY = Exchange.Key.named("cacheable");

    private final Dialect dialect;
    private final ObjectNode body;
    private final RouteCachePolicy routePolicy;
    private final String tenant;
    private final CacheKey key;
    private final CacheDecision decision;
    private final CacheControl control;
    private final String context;
    private final Duration ttl;
    private final Set<String> tags;
    private final SemanticQuery query;
    private final double requestThreshold;
    private final StaleWindows staleWindows;
    // Read on the store's thread by the write-back, which a speculative call's answer may reach first.
    private volatile float[] vector;
    private volatile Consumer<CacheEntry> afterStore;
    private CompletableFuture<float[]> earlyVector;
    private boolean lookupsDone;
    private CacheEntry staleEntry;
    private long exactLookupNanos;

    CacheableRequest(Dialect dialect, ObjectNode body, RouteCachePolicy routePolicy, String tenant, CacheKey key,
                     CacheDecision decision, CacheControl control, String context, Duration ttl, Set<String> tags,
                     SemanticQuery query, double requestThreshold, StaleWindows staleWindows) {
        this.dialect = dialect;
        this.body = body;
        this.routePolicy = routePolicy;
        this.tenant = tenant;
        this.key = key;
        this.decision = decision;
        this.control = control;
        this.context = context;
        this.ttl = ttl;
        this.tags = tags;
        this.query = query;
        this.requestThreshold = requestThreshold;
        this.staleWindows = staleWindows;
    }

    /**
     * This request filed under a key of {@code owner}'s own (a hashed end user or API key, mixed into the key's
     * context with the tenant), so no other user's request can hit it; never matched by meaning.
     */
    CacheableRequest privateTo(String owner, CacheKeys keys) {
        String privateContext = context + "\u0000private\u0000" + tenant + "\u0000" + owner;
        CacheKey own = keys.key(dialect, body, routePolicy, tenant, key.modelVersion(), privateContext);
        return new CacheableRequest(dialect, body, routePolicy, tenant, own, decision, control, privateContext, ttl,
                tags, null, 0, staleWindows);
    }

    /** This request without its semantic query: the exact cache only. */
    CacheableRequest withoutSemantic() {
        return new CacheableRequest(dialect, body, routePolicy, tenant, key, decision, control, context, ttl, tags,
                null, 0, staleWindows);
    }

    public CacheKey key() {
        return key;
    }

    /** Whether the request may read the cache and whether its answer may be written. */
    public CacheDecision decision() {
        return decision;
    }

    /** The client's {@code Cache-Control}: it bounds the age of an answer it accepts. */
    public CacheControl control() {
        return control;
    }

    public Duration ttl() {
        return ttl;
    }

    /**
     * How long past its TTL an entry of this request's route may answer when the backend cannot
     * ({@code stale_if_error}, the route's or the policy's); zero when never.
     */
    public Duration staleIfError() {
        return staleWindows.ifError();
    }

    /**
     * How long past its TTL an entry of this request's route answers at once while one background call refreshes it
     * ({@code stale_while_revalidate}, the route's or the policy's); zero when never.
     */
    public Duration staleWhileRevalidate() {
        return staleWindows.whileRevalidate();
    }

    /** How long past its TTL the store keeps this request's answer: the longer stale window. */
    public Duration staleKeep() {
        return staleWindows.keep();
    }

    /**
     * This request as its background refresh makes it ({@code stale_while_revalidate}): the policy's rules without the
     * client's {@code Cache-Control}, no cache consulted, and {@code stale}, the entry it refreshes, left for requests
     * that find the refresh in flight.
     */
    public CacheableRequest forRefresh(CacheEntry stale) {
        CacheableRequest refresh = new CacheableRequest(dialect, body, routePolicy, tenant, key, decision,
                CacheControl.NONE, context, ttl, tags, query, requestThreshold, staleWindows);
        refresh.lookupsDone = true;
        refresh.staleEntry = stale;
        return refresh;
    }

    public Set<String> tags() {
        return tags;
    }

    public Set<String> storeFinishReasons() {
        return routePolicy.storeFinishReasons();
    }

    /** The semantic query, or null when the request is not matched semantically. */
    public SemanticQuery query() {
        return query;
    }

    /** {@code X-Cache-Threshold}, or 0 for none. */
    public double requestThreshold() {
        return requestThreshold;
    }

    /** The query's vector once embedded; null before, or when embedding failed. */
    public float[] vector() {
        return vector;
    }

    public void vector(float[] embedded) {
        this.vector = embedded;
    }

    /**
     * What to do once this request's fresh answer is stored, on the store's thread. Set on the event loop before the
     * answer completes (a speculative lookup decides before the answer reaches the capture), so the store sees it.
     */
    public void afterStore(Consumer<CacheEntry> hook) {
        this.afterStore = hook;
    }

    /** Runs the {@link #afterStore} hook, if any, with the stored entry. */
    public void stored(CacheEntry entry) {
        if (afterStore != null) {
            afterStore.accept(entry);
        }
    }

    /** The embedding started before the exact lookup ({@code cache.semantic.embed_early}), or null. */
    public CompletableFuture<float[]> earlyVector() {
        return earlyVector;
    }

    public void earlyVector(CompletableFuture<float[]> started) {
        this.earlyVector = started;
    }

    /** No semantic lookup will read the early embedding: cancelled (the embedder skips it while it is queued). */
    public void dropEarlyVector() {
        if (earlyVector != null) {
            earlyVector.cancel(false);
            earlyVector = null;
        }
    }

    /** How long the exact store took to answer its lookup (Server-Timing's {@code cache} on a semantic hit adds it). */
    public long exactLookupNanos() {
        return exactLookupNanos;
    }

    public void exactLookupNanos(long nanos) {
        this.exactLookupNanos = nanos;
    }

    /**
     * True when no cache is consulted any more: an identical answer is in flight (the freshest there is), or a
     * stored answer could not be replayed. The request goes on to be answered by the backend.
     */
    public boolean lookupsDone() {
        return lookupsDone;
    }

    public void endLookups() {
        this.lookupsDone = true;
        dropEarlyVector();
    }

    /** The entry past its TTL, within the stale window, that stands by for a failed call; null for none. */
    public CacheEntry staleEntry() {
        return staleEntry;
    }

    public void staleEntry(CacheEntry entry) {
        this.staleEntry = entry;
    }

    /** The API of the endpoint the request is for. */
    public Dialect dialect() {
        return dialect;
    }

    ObjectNode body() {
        return body;
    }

    RouteCachePolicy routePolicy() {
        return routePolicy;
    }

    String tenant() {
        return tenant;
    }

    String context() {
        return context;
    }
}
