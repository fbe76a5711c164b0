package io.cachegate.cache.exact;

import io.cachegate.config.Normalize;
import io.cachegate.config.RouteCache;
import java.util.Objects;
import java.util.Set;

/**
 * The exact-cache settings of the route a request matched, as this module needs them; built by the
 * gateway (usually with {@link #of(RouteCache)}) so the cache does not depend on the gateway.
 *
 * @param exact exact caching is on for the route
 * @param nondeterministic sampled answers are cached too: every client gets the first sample
 * @param keyOnUser the request's {@code user} is part of the key
 * @param normalize normalisation of user-authored text before keying
 * @param storeFinishReasons finish reasons an answer may have to be stored
 * @param shared entries live in the {@link CacheKey#SHARED_TENANT} namespace instead of the tenant's
 * @param serverState Responses API requests that continue backend state are cached too
 */
public record RouteCachePolicy(boolean exact, boolean nondeterministic, boolean keyOnUser, Normalize normalize,
                               Set<String> storeFinishReasons, boolean shared, boolean serverState) {

    public RouteCachePolicy {
        Objects.requireNonNull(normalize, "normalize");
        storeFinishReasons = Set.copyOf(storeFinishReasons);
    }

    /** Without {@code server_state}. */
    public RouteCachePolicy(boolean exact, boolean nondeterministic, boolean keyOnUser, Normalize normalize,
                            Set<String> storeFinishReasons, boolean shared) {
        this(exact, nondeterministic, keyOnUser, normalize, storeFinishReasons, shared, false);
    }

    /** The route's {@code cache} section from the policy. */
    public static RouteCachePolicy of(RouteCache cache) {
        return new RouteCachePolicy(cache.exact(), cache.nondeterministic(), cache.keyOnUser(), cache.normalize(),
                cache.storeFinishReasons(), cache.shared(), cache.serverState());
    }

    /** What the route changes in the canonical form. */
    public CanonicalOptions canonicalOptions() {
        return new CanonicalOptions(normalize, keyOnUser);
    }

    /** The namespace the key uses: the tenant's own, or the shared one when the route declares it. */
    public String namespace(String tenant) {
        return shared ? CacheKey.SHARED_TENANT : tenant;
    }
}
