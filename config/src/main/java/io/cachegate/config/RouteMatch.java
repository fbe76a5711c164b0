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

    /**
     * What tells this route from others whatever its place in the list (8 hex digits of a hash of the match): the
     * error budget's evidence is kept per route under it with the route's index, so a reordered or changed route
     * table, or gateways of a fleet running different ones, never serve one route on another's verdicts.
     */
    public String fingerprint() {
        return String.format("%08x", (model + '\u0000' + tenant.orElse("\u0000") + '\u0000' + path).hashCode());
    }

    /** Matches every request: every key of {@code match} at its default (see {@code RouteKeys}). */
    public static RouteMatch any() {
        return new RouteMatch(RouteKeys.MATCH_MODEL.fallback(), Optional.empty(), RouteKeys.MATCH_PATH.fallback());
    }
}
