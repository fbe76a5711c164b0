package io.cachegate.gateway.cache;

import io.cachegate.cache.exact.CacheControl;
import io.cachegate.cache.exact.CacheDecision;
import io.cachegate.cache.exact.CacheEntry;
import io.cachegate.cache.exact.CacheKey;
import io.cachegate.cache.exact.CacheStore;
import io.cachegate.cache.exact.Cacheability;
import io.cachegate.cache.exact.CanonicalRequest;
import io.cachegate.cache.exact.ContextHash;
import io.cachegate.cache.exact.ExactKeyFactory;
import io.cachegate.cache.exact.RequestKind;
import io.cachegate.cache.exact.RouteCachePolicy;
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

    public ExactCacheLayer(Policy policy, CacheStore store, ModelVersions versions, GatewayMetrics metrics) {
        this.policy = policy;
        this.store = store;
        this.versions = versions;
        this.metrics = metrics;
    }

    public CacheStore store() {
        return store;
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
        byte[] canonical = CanonicalRequest.of(kind, r.parsed().body(), routePolicy.canonicalOptions());
        String context = ContextHash.of(Optional.ofNullable(r.request().headers().get(GatewayHeaders.X_CACHE_CONTEXT)),
                routeCache.context());
        CacheKey key = keys.key(routePolicy.namespace(r.tenant()), version.get(), context, canonical);
        Duration ttl = routeCache.ttl().orElse(policy.cache().exact().ttl());
        AnswerCapture.Target target = new AnswerCapture.Target(store, key, ttl, tags, r.requestId(),
                routePolicy.storeFinishReasons());
        Lookup lookup = new Lookup(r, key, decision, control, target);
        lookup.start();
        return lookup::cancel;
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
        private ActiveExchange current;
        private boolean cancelled;
        private boolean requestOwned = true;

        Lookup(CacheRequest r, CacheKey key, CacheDecision decision, CacheControl control, AnswerCapture.Target target) {
            this.r = r;
            this.key = key;
            this.decision = decision;
            this.control = control;
            this.target = target;
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
                hit(entry.get(), lookupNanos);
            } else {
                miss(decision.write());
            }
        }

        private void hit(CacheEntry entry, long lookupNanos) {
            Optional<List<byte[]>> events = Optional.empty();
            if (r.parsed().stream()) {
                events = CachedAnswerWriter.replay(entry, r.parsed().includeUsage());
                if (events.isEmpty()) {
                    miss(decision.write());
                    return;
                }
            }
            // Counted before the answer leaves: whoever has the answer also sees it in the metrics.
            metrics.requestStarted();
            metrics.cacheLookup("exact", "hit");
            metrics.cacheHit(r.routeLabel(), entry.promptTokens(), entry.completionTokens());
            metrics.requestFinished(r.routeLabel(), r.endpoint(), 200, System.nanoTime() - r.startNanos());
            CachedAnswerWriter.write(r.ctx(), entry, events, r.requestId(), r.keepAlive(), r.startNanos(), lookupNanos);
            releaseRequest();
            r.onDone().run();
        }

        private void miss(boolean write) {
            metrics.cacheLookup("exact", "miss");
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
    }
}
