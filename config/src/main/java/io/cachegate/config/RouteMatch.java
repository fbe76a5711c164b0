package io.cachegate.config;

import java.util.Objects;
import java.util.Optional;

/**
 * What a route matches: a model-name glob, an optional tenant id (exact), and a request-path glob.
 */
public record RouteMatch(String model, Optional<String> tenant, String path) {

    public RouteMatch {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(path, "path");
    }

    /** Matches every request: every key of {@code match} at its default (see {@code RouteKeys}). */
    public static RouteMatch any() {
        return new RouteMatch(RouteKeys.MATCH_MODEL.fallback(), Optional.empty(), RouteKeys.MATCH_PATH.fallback());
    }
}
