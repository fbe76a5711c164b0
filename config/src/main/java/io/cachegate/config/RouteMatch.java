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

    /** Matches every request. */
    public static RouteMatch any() {
        return new RouteMatch("*", Optional.empty(), "*");
    }
}
