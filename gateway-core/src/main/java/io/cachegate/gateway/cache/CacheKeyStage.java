package io.cachegate.gateway.cache;

import io.cachegate.cache.exact.BypassReason;
import io.cachegate.cache.exact.CacheControl;
import io.cachegate.cache.exact.CacheDecision;
import io.cachegate.cache.exact.CacheKey;
import io.cachegate.cache.exact.Cacheability;
import io.cachegate.cache.exact.ContextHash;
import io.cachegate.cache.exact.Dialect;
import io.cachegate.cache.exact.RouteCachePolicy;
import io.cachegate.config.Policy;
import io.cachegate.config.RouteCache;
import io.cachegate.config.SemanticCacheSettings;
import io.cachegate.gateway.api.ApiException;
import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.gateway.api.OpenAiRequest;
import io.cachegate.gateway.exchange.Exchange;
import io.cachegate.gateway.exchange.GatewayHeaders;
import io.cachegate.gateway.exchange.Stage;
import io.cachegate.gateway.exchange.LookupStatus;
import io.cachegate.gateway.request.BodyFacts;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

/**
 * Cacheability and key: decides whether a request may use the cache (deterministic? {@code Cache-Control}? the
 * route allows it? its model version known?) and, if so, builds its exact key and, on a semantic route, its
 * semantic query (the same key with the embedded text blanked out). A request that may not use the cache goes
 * on as a BYPASS with the reason counted.
 */
public final class CacheKeyStage implements Stage {

    private static final int MAX_TAGS = 16;
    private static final int MAX_TAG_LENGTH = 128;

    private final Policy policy;
    private final CacheKeys keys;
    /** Longer texts are not matched semantically: the embedder would cut them at max_tokens ([CLS] and [SEP]). */
    private final int semanticMaxChars;

    public CacheKeyStage(Policy policy, CacheKeys keys) {
        this.policy = policy;
        this.keys = keys;
        SemanticCacheSettings semantic = policy.cache().semantic();
        this.semanticMaxChars = semantic.enabled() ? semantic.embedder().maxTokens() - 2 : 0;
    }

    @Override
    public void handle(Exchange x, Next next) {
        OpenAiRequest parsed = x.parsed();
        if (parsed == null) {
            next.proceed(x); // pass-through requests are never cached
            return;
        }
        RouteCache routeCache = x.route().route().cache();
        Dialect dialect = parsed.endpoint().dialect();
        RouteCachePolicy routePolicy = RouteCachePolicy.of(routeCache);
        CacheControl control = CacheControl.parse(x.listHeader(HttpHeaderNames.CACHE_CONTROL));
        CacheDecision decision = Cacheability.decide(dialect, parsed.body(), routePolicy, control);
        if (!decision.read() && !decision.write()) {
            bypass(x, decision.reason(), next);
            return;
        }
        Optional<String> version = keys.versions().versionFor(x.route().backend(), parsed.model());
        if (version.isEmpty()) {
            // Disagreeing replicas (a rolling deploy, a model swap) have their own reason: it is expected to pass.
            bypass(x, keys.versions().replicasDisagree(x.route().backend(), parsed.model())
                    ? BypassReason.MODEL_VERSIONS_DISAGREE : BypassReason.MODEL_VERSION_UNKNOWN, next);
            return;
        }
        x.record().modelVersion(version.get());
        Set<String> tags = tags(x.listHeader(GatewayHeaders.X_CACHE_TAGS));
        String context = ContextHash.of(Optional.ofNullable(x.header(GatewayHeaders.X_CACHE_CONTEXT)),
                routeCache.context());
        // Declared labels are part of the exact key (and so of the answer in flight), not of the semantic scope:
        // there the index filters by the labels the key holds.
        String keyContext = ContextHash.withLabels(context, EntryAccess.of(x).declared());
        KeyInputs inputs = new KeyInputs(x.route().route().index(), x.tenant(), version.get(), context, keyContext);
        BodyFacts facts = x.get(BodyFacts.KEY);
        Keyed keyed = facts != null && facts.parsed() == parsed
                ? facts.derive(inputs, Keyed.class, () -> keyed(dialect, parsed, routeCache, routePolicy, inputs))
                : keyed(dialect, parsed, routeCache, routePolicy, inputs);
        CacheKey key = keyed.key();
        Duration ttl = routeCache.ttl().orElse(policy.cache().exact().ttl());
        SemanticQuery query = null;
        if (keyed.semantic() != null) {
            query = keyed.semantic().query().orElse(null);
            keyed.semantic().reason().ifPresent(reason -> x.record().semanticLookup(LookupStatus.INELIGIBLE));
        }
        double threshold = query == null ? 0 : threshold(x.header(GatewayHeaders.X_CACHE_THRESHOLD));
        x.set(CacheableRequest.KEY, new CacheableRequest(dialect, parsed.body(), routePolicy, x.tenant(), key, decision,
                control, keyContext, ttl, tags, query, threshold,
                new StaleWindows(routeCache.staleIfError().orElse(policy.cache().exact().staleIfError()),
                        routeCache.staleWhileRevalidate().orElse(policy.cache().exact().staleWhileRevalidate()))));
        next.proceed(x);
    }

    /**
     * The request's exact key and, on a semantic route, its semantic query: the canonical form of the body, the
     * costly part of this stage, which a byte-identical repeat reads from its {@link BodyFacts}.
     */
    private Keyed keyed(Dialect dialect, OpenAiRequest parsed, RouteCache routeCache, RouteCachePolicy routePolicy,
                        KeyInputs in) {
        CacheKey key = keys.key(dialect, parsed.body(), routePolicy, in.tenant(), in.version(), in.keyContext());
        if (semanticMaxChars == 0 || !routeCache.semantic()) {
            return new Keyed(key, null);
        }
        return new Keyed(key, SemanticQuery.of(dialect, parsed.body(), routeCache.embed(),
                routeCache.semanticMaxTurns(), semanticMaxChars, routePolicy.canonicalOptions(), keys.factory(),
                routePolicy.namespace(in.tenant()), in.version(), in.context()));
    }

    /** Everything a key depends on besides the body (the route stands for its cache policy in this generation). */
    private record KeyInputs(int route, String tenant, String version, String context, String keyContext) {
    }

    /** A body's key for given inputs; {@code semantic} null when the route does not match by meaning. */
    private record Keyed(CacheKey key, SemanticQuery.Prepared semantic) {
    }

    private static void bypass(Exchange x, BypassReason reason, Next next) {
        x.record().bypass(reason);
        next.proceed(x);
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
}
