package io.cachegate.config;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Per-route cache behaviour.
 *
 * @param ttl overrides the store's TTL for entries written by this route
 * @param context a fixed context version mixed into the cache key (e.g. the knowledge-base revision)
 * @param shared when true, entries are shared across tenants; off by default so one tenant never
 *               sees another's answers
 */
public record RouteCache(boolean exact, boolean semantic, Optional<Duration> ttl, Optional<String> context,
                         Normalize normalize, boolean shared) {

    public RouteCache {
        Objects.requireNonNull(ttl, "ttl");
        Objects.requireNonNull(context, "context");
        Objects.requireNonNull(normalize, "normalize");
    }

    /** Exact caching only, no normalisation, per tenant. */
    public static RouteCache defaults() {
        return new RouteCache(true, false, Optional.empty(), Optional.empty(), Normalize.NONE, false);
    }
}
