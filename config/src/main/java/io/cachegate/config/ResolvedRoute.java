package io.cachegate.config;

import java.util.Objects;
import java.util.List;

/**
 * The outcome of {@link RouteTable#resolve}: the matching route and the backends it resolved to.
 *
 * @param fallbacks the backends of the route's fallback chain, in order
 */
public record ResolvedRoute(Route route, Backend backend, List<Backend> fallbacks) {

    public ResolvedRoute {
        Objects.requireNonNull(route, "route");
        Objects.requireNonNull(backend, "backend");
        fallbacks = List.copyOf(fallbacks);
    }
}
