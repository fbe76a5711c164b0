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
 * @param embed which user text the semantic cache embeds
 * @param semanticMaxTurns conversations with more user turns than this are not matched semantically (1 by
 *                         default: earlier turns are where stale and misplaced answers come from)
 * @param threshold this route's semantic similarity threshold, instead of {@code cache.semantic.threshold}
 */
public record RouteCache(boolean exact, boolean semantic, Optional<Duration> ttl, Optional<String> context,
                         Normalize normalize, boolean shared, boolean nondeterministic, boolean keyOnUser,
                         Set<String> storeFinishReasons, Embed embed, int semanticMaxTurns,
                         Optional<Double> threshold) {

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
        Objects.requireNonNull(embed, "embed");
        Objects.requireNonNull(threshold, "threshold");
        if (semanticMaxTurns < 1) {
            throw new IllegalArgumentException("semanticMaxTurns must be at least 1, was " + semanticMaxTurns);
        }
        if (threshold.isPresent() && !(threshold.get() > 0 && threshold.get() <= 1)) {
            throw new IllegalArgumentException("threshold must be in (0, 1], was " + threshold.get());
        }
    }

    /**
     * Exact caching of deterministic requests only, no normalisation, per tenant, complete answers only; when
     * semantic caching is switched on: the last user message of single-turn requests, at the policy's threshold.
     */
    public static RouteCache defaults() {
        return new RouteCache(true, false, Optional.empty(), Optional.empty(), Normalize.NONE, false, false, false,
                Set.of("stop"), Embed.LAST_USER, 1, Optional.empty());
    }
}
