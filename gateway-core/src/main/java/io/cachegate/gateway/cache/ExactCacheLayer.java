package io.cachegate.gateway.cache;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cachegate.cache.exact.CacheControl;
import io.cachegate.cache.exact.CacheDecision;
import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.CacheKey;
import io.cachegate.cache.exact.CacheStore;
import io.cachegate.cache.exact.Cacheability;
import io.cachegate.cache.exact.CanonicalRequest;
import io.cachegate.cache.exact.ContextHash;
import io.cachegate.cache.exact.ExactKeyFactory;
import io.cachegate.cache.exact.PurgeScope;
import io.cachegate.cache.exact.RequestKind;
import io.cachegate.cache.exact.RouteCachePolicy;
import io.cachegate.cache.semantic.MatchDecision;
import io.cachegate.config.Policy;
import io.cachegate.config.RouteCache;
import io.cachegate.gateway.api.ApiException;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.metrics.GatewayMetrics;
import io.cachegate.gateway.proxy.ActiveExchange;
import io.cachegate.gateway.proxy.GatewayHeaders;
import io.cachegate.gateway.proxy.ResponseTap;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The exact cache on the request path: decides whether a request may use the cache, builds its
 * key (tenant, model version, context, canonical request), answers hits, and on a miss lets one
 * upstream call serve every identical request in flight while the answer is captured for the
 * store. The store failing (Redis down or slow) turns the request into a BYPASS, never an error.
 */
public final class ExactCacheLayer implements AutoCloseable {

    /** A stored answer is at most this large; longer answers are relayed but not stored. */
    static final long MAX_ENTRY_BYTES = 8L * 1024 * 1024;
    /** The recording a coalesced answer keeps for its followers is bounded by this. */
    static final long MAX_SHARED_BYTES = 32L * 1024 * 1024;
    private static final int MAX_TAGS = 16;
    private static final int MAX_TAG_LENGTH = 128;

    private final Policy policy;
    private final CacheStore store;
    private final ModelVersions versions;
    private final GatewayMetrics metrics;
    private final ExactKeyFactory keys = new ExactKeyFactory();
    private final Coalescer coalescer = new Coalescer(MAX_SHARED_BYTES);
    /** Null when the policy has no semantic cache. */
    private final SemanticCacheLayer semantic;
    private final BooleanSupplier skipOptionalWork;

    public ExactCacheLayer(Policy policy, CacheStore store, ModelVersions versions, GatewayMetrics metrics) {
        this(policy, store, versions, metrics, null, () -> false);
    }

    /**
     * @param semantic the semantic layer consulted after an exact miss, or null; closed with this layer
     * @param skipOptionalWork true while admission control is in overload mode: the semantic write-back waits
     */
    public ExactCacheLayer(Policy policy, CacheStore store, ModelVersions versions, GatewayMetrics metrics,
                           SemanticCacheLayer semantic, BooleanSupplier skipOptionalWork) {
        this.policy = policy;
        this.store = store;
        this.versions = versions;
        this.metrics = metrics;
        this.semantic = semantic;
        this.skipOptionalWork = skipOptionalWork;
    }

    public CacheStore store() {
        return store;
    }

    public Optional<SemanticCacheLayer> semantic() {
        return Optional.ofNullable(semantic);
    }

    /**
     * Removes the entries in {@code scope} from the store and their index entries from the semantic cache. The
     * store's purge decides the outcome: an index entry that survives a failed index purge points at nothing and
     * is a miss when found.
     */
    public CompletableFuture<Purged> purge(PurgeScope scope) {
        CompletableFuture<Long> indexPurge = semantic == null ? CompletableFuture.completedFuture(0L)
                : semantic.purge(scope).handle((count, error) -> error == null ? count : -1L);
        return store.purge(scope).thenCombine(indexPurge, Purged::new);
    }

    /** What a purge removed; {@code semantic} is -1 when the index could not be purged. */
    public record Purged(long exact, long semantic) {
    }

    /** Answers {@code r}; the returned exchange cancels whatever stage the request is in. */
    public ActiveExchange handle(CacheRequest r) {
        RouteCache routeCache = r.route().route().cache();
        RequestKind kind = switch (r.parsed().endpoint()) {
            case CHAT_COMPLETIONS -> RequestKind.CHAT;
            case COMPLETIONS -> RequestKind.COMPLETION;
            default -> RequestKind.EMBEDDING;
        };
        RouteCachePolicy routePolicy = RouteCachePolicy.of(routeCache);
        CacheControl control = CacheControl.parse(r.request().headers().get("cache-control"));
        CacheDecision decision = Cacheability.decide(kind, r.parsed().body(), routePolicy, control);
        if (!decision.read() && !decision.write()) {
            return bypass(r, decision.reason().tag());
        }
        Optional<String> version = versions.versionFor(r.route().backend(), r.parsed().model());
        if (version.isEmpty()) {
            return bypass(r, "model_version_unknown");
        }
        Set<String> tags = tags(r.request().headers().get(GatewayHeaders.X_CACHE_TAGS));
        String context = ContextHash.of(Optional.ofNullable(r.request().headers().get(GatewayHeaders.X_CACHE_CONTEXT)),
                routeCache.context());
        CacheKey key = key(kind, r.parsed().body(), routePolicy, r.tenant(), version.get(), context);
        Duration ttl = routeCache.ttl().orElse(policy.cache().exact().ttl());
        AnswerCapture.Target base = new AnswerCapture.Target(store, key, ttl, tags, r.requestId(),
                routePolicy.storeFinishReasons());
        AnswerCapture.Target target = base.retarget((backend, model) -> keyAnsweredBy(kind, r.parsed().body(),
                routePolicy, context, r.tenant(), backend, model).map(base::movedTo));
        SemanticQuery query = null;
        if (semantic != null && routeCache.semantic()) {
            SemanticQuery.Prepared prepared = semantic.prepare(kind, r.parsed().body(), routeCache,
                    routePolicy.canonicalOptions(), routePolicy.namespace(r.tenant()), version.get(), context);
            query = prepared.query().orElse(null);
            prepared.reason().ifPresent(reason -> metrics.cacheLookup("semantic", "ineligible"));
        }
        double requestThreshold = query == null ? 0 : threshold(r.request().headers().get(GatewayHeaders.X_CACHE_THRESHOLD));
        Lookup lookup = new Lookup(r, key, decision, control, target, query, requestThreshold);
        lookup.start();
        return lookup::cancel;
    }

    /**
     * The key of this request's answer when {@code model} on {@code backendName} (a route's fallback) gives it:
     * the request with that model, under that model's version. Empty while the version is unknown.
     */
    private Optional<CacheKey> keyAnsweredBy(RequestKind kind, ObjectNode body, RouteCachePolicy routePolicy,
                                             String context, String tenant, String backendName, String model) {
        return policy.backend(backendName).flatMap(b -> versions.versionFor(b, model)).map(version ->
                key(kind, body.deepCopy().put("model", model), routePolicy, tenant, version, context));
    }

    private CacheKey key(RequestKind kind, ObjectNode body, RouteCachePolicy routePolicy, String tenant,
                         String version, String context) {
        byte[] canonical = CanonicalRequest.of(kind, body, routePolicy.canonicalOptions());
        return keys.key(routePolicy.namespace(tenant), version, context, canonical);
    }

    /** {@code X-Cache-Threshold}: a similarity in (0, 1]; it can only make the semantic decision stricter. */
    static double threshold(String header) {
        if (header == null) {
            return 0;
        }
        try {
            double value = Double.parseDouble(header.strip());
            if (value > 0 && value <= 1) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new ApiException(ErrorKind.INVALID_REQUEST,
                "X-Cache-Threshold must be a similarity in (0, 1], e.g. 0.97; it can only make the semantic cache stricter");
    }

    private ActiveExchange bypass(CacheRequest r, String reason) {
        metrics.cacheBypass(reason);
        metrics.cacheLookup("exact", "bypass");
        return r.upstream().start(GatewayHeaders.BYPASS, ResponseTap.NONE);
    }

    /** One cacheable request from lookup to answer; confined to the client's event loop. */
    private final class Lookup {
        private final CacheRequest r;
        private final CacheKey key;
        private final CacheDecision decision;
        private final CacheControl control;
        private final AnswerCapture.Target target;
        /** Null when the request is not looked up semantically. */
        private final SemanticQuery query;
        private final double requestThreshold;
        /** The query's vector once embedded, reused by the write-back. */
        private float[] vector;
        private ActiveExchange current;
        private boolean cancelled;
        private boolean requestOwned = true;

        Lookup(CacheRequest r, CacheKey key, CacheDecision decision, CacheControl control, AnswerCapture.Target target,
               SemanticQuery query, double requestThreshold) {
            this.r = r;
            this.key = key;
            this.decision = decision;
            this.control = control;
            this.target = query == null ? target : target.afterStore(this::writeBack);
            this.query = query;
            this.requestThreshold = requestThreshold;
        }

        void start() {
            // An identical answer being generated is the freshest there is: follow it without a lookup.
            SharedAnswer flight = decision.write()
                    ? coalescer.inFlight(key, r.parsed().stream(), r.parsed().includeUsage()) : null;
            if (flight != null) {
                metrics.cacheLookup("exact", "miss");
                metrics.cacheMiss(r.routeLabel());
                followFlight(flight);
                return;
            }
            if (!decision.read()) {
                metrics.cacheLookup("exact", "miss");
                miss(true);
                return;
            }
            long t0 = System.nanoTime();
            CompletableFuture<Optional<CacheEntry>> lookup = store.get(key);
            if (lookup.isDone() && r.ctx().executor().inEventLoop()) {
                // The in-process store answers at once: carry on here rather than queue a task behind other I/O.
                lookup.whenComplete((entry, error) -> looked(entry, error, t0));
            } else {
                lookup.whenComplete((entry, error) -> r.ctx().executor().execute(() -> looked(entry, error, t0)));
            }
        }

        /** Continues on the client's event loop once the store has answered. */
        private void looked(Optional<CacheEntry> entry, Throwable error, long t0) {
            long lookupNanos = System.nanoTime() - t0;
            metrics.storeLookupTime(lookupNanos);
            if (cancelled) {
                return;
            }
            if (error != null) {
                // Fail open: the store is down or slow. Answer from the backend, and do not try to write either.
                metrics.cacheLookup("exact", "error");
                metrics.cacheBypass("store_unavailable");
                start(GatewayHeaders.BYPASS, ResponseTap.NONE);
            } else if (entry.isPresent() && control.accepts(System.currentTimeMillis() - entry.get().createdAtMillis())) {
                hit(entry.get(), lookupNanos, null);
            } else {
                metrics.cacheLookup("exact", "miss");
                if (query == null) {
                    miss(decision.write());
                    return;
                }
                semantic.lookup(query, r.route().route().cache(), requestThreshold).whenComplete((result, lookupError) ->
                        r.ctx().executor().execute(() -> semanticLooked(
                                lookupError == null ? result : SemanticCacheLayer.Result.FAILED, lookupNanos)));
            }
        }

        /** Continues on the client's event loop once the semantic lookup has answered (it never fails). */
        private void semanticLooked(SemanticCacheLayer.Result result, long lookupNanos) {
            if (cancelled) {
                return;
            }
            vector = result.vector();
            if (result.match().isEmpty()) {
                metrics.cacheLookup("semantic", result.failed() ? "error" : "miss");
                miss(decision.write());
                return;
            }
            MatchDecision.Match match = result.match().get();
            Optional<CacheKey> entryKey = CacheKey.fromRedisKey(match.neighbour().entryKey())
                    // The scope holds tenant and model version already; checked again because a mix-up here leaks.
                    .filter(k -> k.tenant().equals(key.tenant()) && k.modelVersion().equals(key.modelVersion()));
            if (entryKey.isEmpty()) {
                semantic.forget(match.neighbour().entryKey());
                metrics.cacheLookup("semantic", "miss");
                miss(decision.write());
                return;
            }
            long t0 = System.nanoTime();
            store.get(entryKey.get()).whenComplete((entry, error) -> r.ctx().executor().execute(() -> {
                long fetchNanos = System.nanoTime() - t0;
                if (cancelled) {
                    return;
                }
                if (error != null) {
                    semantic.metrics().failOpen("fetch");
                    metrics.cacheLookup("semantic", "error");
                    miss(decision.write());
                } else if (entry.isEmpty()) {
                    semantic.forget(match.neighbour().entryKey());
                    metrics.cacheLookup("semantic", "miss");
                    miss(decision.write());
                } else if (!control.accepts(System.currentTimeMillis() - entry.get().createdAtMillis())) {
                    metrics.cacheLookup("semantic", "miss");
                    miss(decision.write());
                } else {
                    SemanticHit semanticHit = new SemanticHit(match.similarity(), result.embedNanos(),
                            result.searchNanos());
                    if (hit(entry.get(), lookupNanos + fetchNanos, semanticHit)) {
                        warmExact(entry.get(), match.neighbour().expiresAtMillis());
                    }
                }
            }));
        }

        /** A semantic hit also files the answer under this request's own key, so its repeats are exact hits. */
        private void warmExact(CacheEntry entry, long expiresAtMillis) {
            long remaining = expiresAtMillis - System.currentTimeMillis();
            if (!decision.write() || remaining <= 0) {
                return;
            }
            store.put(key, entry, Duration.ofMillis(remaining)).exceptionally(error -> {
                metrics.cacheWriteFailed();
                return null;
            });
        }

        /** After this request's answer was stored: file its vector in the semantic index. */
        private void writeBack() {
            if (skipOptionalWork.getAsBoolean()) {
                semantic.metrics().writeBack("skipped"); // overload: the embedder's CPU is better spent elsewhere
                return;
            }
            semantic.writeBack(query, vector, key, target.tags(), target.ttl());
        }

        /** Answers from {@code entry}; false (and a miss instead) when a stream cannot be replayed from it. */
        private boolean hit(CacheEntry entry, long lookupNanos, SemanticHit semanticHit) {
            Optional<List<byte[]>> events = Optional.empty();
            if (r.parsed().stream()) {
                events = CachedAnswerWriter.replay(entry, r.parsed().includeUsage());
                if (events.isEmpty()) {
                    metrics.cacheLookup(semanticHit == null ? "exact" : "semantic", "miss");
                    miss(decision.write());
                    return false;
                }
            }
            // Counted before the answer leaves: whoever has the answer also sees it in the metrics.
            metrics.requestStarted();
            metrics.cacheLookup(semanticHit == null ? "exact" : "semantic", "hit");
            metrics.cacheHit(r.routeLabel(), entry.promptTokens(), entry.completionTokens());
            metrics.requestFinished(r.routeLabel(), r.endpoint(), 200, System.nanoTime() - r.startNanos());
            CachedAnswerWriter.write(r.ctx(), entry, events, r.requestId(), r.keepAlive(), r.startNanos(), lookupNanos,
                    semanticHit);
            releaseRequest();
            r.onDone().run();
            return true;
        }

        private void miss(boolean write) {
            metrics.cacheMiss(r.routeLabel());
            if (!write) {
                start(GatewayHeaders.MISS, ResponseTap.NONE);
                return;
            }
            follow(true);
        }

        /** Leads a new upstream call for the key, or follows the one in flight. */
        private void follow(boolean coalesce) {
            if (cancelled) {
                return;
            }
            if (!coalesce) {
                start(GatewayHeaders.MISS, new AnswerCapture(target, MAX_ENTRY_BYTES, metrics));
                return;
            }
            Coalescer.Role role = coalescer.join(key, r.parsed().stream(), r.parsed().includeUsage());
            if (role.leader()) {
                // The answer stays joinable until its write has settled: see SharedAnswer.
                SharedAnswer shared = role.answer();
                AnswerCapture capture = new AnswerCapture(target, MAX_ENTRY_BYTES, metrics, shared::settle);
                start(GatewayHeaders.MISS, new CompositeTap(capture, shared));
                return;
            }
            followFlight(role.answer());
        }

        private void followFlight(SharedAnswer answer) {
            FollowerExchange follower = new FollowerExchange(r.ctx(), answer, r.requestId(), r.keepAlive(),
                    r.startNanos(), r.routeLabel(), r.endpoint(), metrics, this::follow, () -> {
                        releaseRequest();
                        r.onDone().run();
                    });
            current = follower::cancel;
            follower.start(TimeUnit.NANOSECONDS.convert(r.route().backend().timeouts().firstByte()));
        }

        private void start(CharSequence xCache, ResponseTap tap) {
            requestOwned = false; // the upstream exchange owns the request from here
            current = r.upstream().start(xCache, tap);
        }

        void cancel() {
            cancelled = true;
            if (current != null) {
                current.cancel();
            } else {
                releaseRequest();
                r.onDone().run();
            }
        }

        private void releaseRequest() {
            if (requestOwned) {
                requestOwned = false;
                r.request().release();
            }
        }
    }

    /** Parses {@code X-Cache-Tags: doc:42,kb:7}: at most 16 tags of at most 128 visible ASCII characters. */
    static Set<String> tags(String header) {
        if (header == null || header.isBlank()) {
            return Set.of();
        }
        Set<String> tags = new LinkedHashSet<>();
        for (String raw : header.split(",")) {
            String tag = raw.trim();
            if (tag.isEmpty()) {
                continue;
            }
            boolean visible = tag.chars().allMatch(c -> c > 32 && c < 127);
            if (!visible || tag.length() > MAX_TAG_LENGTH || tags.size() == MAX_TAGS) {
                throw new ApiException(ErrorKind.INVALID_REQUEST, "X-Cache-Tags takes at most " + MAX_TAGS
                        + " comma-separated tags of at most " + MAX_TAG_LENGTH + " visible ASCII characters");
            }
            tags.add(tag);
        }
        return Set.copyOf(tags);
    }

    @Override
    public void close() {
        store.close();
        if (semantic != null) {
            semantic.close();
        }
    }
}
