package io.cachegate.config;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Per-route cache behaviour.
 *
 * @param ttl overrides the store's TTL for entries written by this route
 * @param context a fixed context version mixed into the cache key (e.g. the knowledge-base revision)
 * @param shared when true, entries are shared across tenants; off by default so one tenant never
 *               sees another's answers
 * @param nondeterministic when true, sampled answers (temperature above 0 without a seed, n above 1)
 *                         are cached too: every client then gets the first sample instead of a fresh one
 * @param keyOnUser when true, the request's {@code user} field is part of the key (per-user answers)
 * @param storeFinishReasons the {@code finish_reason} values an answer may have to be stored, a subset
 *                           of {@link #FINISH_REASONS}; by default only complete answers ({@code stop})
 */
public record RouteCache(boolean exact, boolean semantic, Optional<Duration> ttl, Optional<String> context,
                         Normalize normalize, boolean shared, boolean nondeterministic, boolean keyOnUser,
                         Set<String> storeFinishReasons) {

    /** The finish reasons a route may allow to be stored (the OpenAI ones). */
    public static final Set<String> FINISH_REASONS = Set.of("stop", "length", "tool_calls", "content_filter");

    public RouteCache {
        Objects.requireNonNull(ttl, "ttl");
        Objects.requireNonNull(context, "context");
        Objects.requireNonNull(normalize, "normalize");
        storeFinishReasons = Set.copyOf(storeFinishReasons);
        if (storeFinishReasons.isEmpty() || !FINISH_REASONS.containsAll(storeFinishReasons)) {
            throw new IllegalArgumentException("storeFinishReasons must be a non-empty subset of " + FINISH_REASONS
                    + ", was " + storeFinishReasons);
        }
    }

    /** Exact caching of deterministic requests only, no normalisation, per tenant, complete answers only. */
    public static RouteCache defaults() {
        return new RouteCache(true, false, Optional.empty(), Optional.empty(), Normalize.NONE, false, false, false,
                Set.of("stop"));
    }
}
