package io.cachegate.config;

import java.util.Objects;
import java.util.Optional;

/** The outcome of {@link RouteTable#resolve}: the matching route and the backends it resolved to. */
public record ResolvedRoute(Route route, Backend backend, Optional<Backend> fallback) {

    public ResolvedRoute {
        Objects.requireNonNull(route, "route");
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(fallback, "fallback");
    }
}
