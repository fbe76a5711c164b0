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
 * @param sensitive what happens to a request or answer holding personal data or a secret
 * @param serverState when true, Responses API requests that continue state the backend holds
 *                    ({@code previous_response_id}, {@code conversation}, a stored {@code prompt}, item
 *                    references) are cached too; off by default, as that state may change or be gone
 * @param staleIfError overrides {@code cache.exact.stale_if_error} for this route (zero turns it off here)
 * @param staleWhileRevalidate overrides {@code cache.exact.stale_while_revalidate} for this route (zero: off here)
 */
public record RouteCache(boolean exact, boolean semantic, Optional<Duration> ttl, Optional<String> context,
                         Normalize normalize, boolean shared, boolean nondeterministic, boolean keyOnUser,
                         Set<String> storeFinishReasons, Embed embed, int semanticMaxTurns,
                         Optional<Double> threshold, SensitiveMode sensitive, boolean serverState,
                         Optional<Duration> staleIfError, Optional<Duration> staleWhileRevalidate) {

    /** The finish reasons a route may allow to be stored (the OpenAI ones). */
    public static final Set<String> FINISH_REASONS = Set.copyOf(RouteKeys.FINISH_REASONS);

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
        Objects.requireNonNull(sensitive, "sensitive");
        if (semanticMaxTurns < 1) {
            throw new IllegalArgumentException("semanticMaxTurns must be at least 1, was " + semanticMaxTurns);
        }
        if (threshold.isPresent() && !(threshold.get() > 0 && threshold.get() <= 1)) {
            throw new IllegalArgumentException("threshold must be in (0, 1], was " + threshold.get());
        }
        Objects.requireNonNull(staleIfError, "staleIfError");
        if (staleIfError.isPresent() && staleIfError.get().isNegative()) {
            throw new IllegalArgumentException("staleIfError must not be negative, was " + staleIfError.get());
        }
        Objects.requireNonNull(staleWhileRevalidate, "staleWhileRevalidate");
        if (staleWhileRevalidate.isPresent() && staleWhileRevalidate.get().isNegative()) {
            throw new IllegalArgumentException("staleWhileRevalidate must not be negative, was "
                    + staleWhileRevalidate.get());
        }
    }

    /** With the policy's {@code stale_while_revalidate}. */
    public RouteCache(boolean exact, boolean semantic, Optional<Duration> ttl, Optional<String> context,
                      Normalize normalize, boolean shared, boolean nondeterministic, boolean keyOnUser,
                      Set<String> storeFinishReasons, Embed embed, int semanticMaxTurns, Optional<Double> threshold,
                      SensitiveMode sensitive, boolean serverState, Optional<Duration> staleIfError) {
        this(exact, semantic, ttl, context, normalize, shared, nondeterministic, keyOnUser, storeFinishReasons, embed,
                semanticMaxTurns, threshold, sensitive, serverState, staleIfError,
                RouteKeys.STALE_WHILE_REVALIDATE.fallback());
    }

    /** With the policy's {@code stale_if_error}. */
    public RouteCache(boolean exact, boolean semantic, Optional<Duration> ttl, Optional<String> context,
                      Normalize normalize, boolean shared, boolean nondeterministic, boolean keyOnUser,
                      Set<String> storeFinishReasons, Embed embed, int semanticMaxTurns, Optional<Double> threshold,
                      SensitiveMode sensitive, boolean serverState) {
        this(exact, semantic, ttl, context, normalize, shared, nondeterministic, keyOnUser, storeFinishReasons, embed,
                semanticMaxTurns, threshold, sensitive, serverState, RouteKeys.STALE_IF_ERROR.fallback());
    }

    /** With the default {@code server_state} ({@code false}). */
    public RouteCache(boolean exact, boolean semantic, Optional<Duration> ttl, Optional<String> context,
                      Normalize normalize, boolean shared, boolean nondeterministic, boolean keyOnUser,
                      Set<String> storeFinishReasons, Embed embed, int semanticMaxTurns, Optional<Double> threshold,
                      SensitiveMode sensitive) {
        this(exact, semantic, ttl, context, normalize, shared, nondeterministic, keyOnUser, storeFinishReasons, embed,
                semanticMaxTurns, threshold, sensitive, RouteKeys.SERVER_STATE.fallback());
    }

    /** With the default {@code sensitive} mode ({@code no_store}). */
    public RouteCache(boolean exact, boolean semantic, Optional<Duration> ttl, Optional<String> context,
                      Normalize normalize, boolean shared, boolean nondeterministic, boolean keyOnUser,
                      Set<String> storeFinishReasons, Embed embed, int semanticMaxTurns, Optional<Double> threshold) {
        this(exact, semantic, ttl, context, normalize, shared, nondeterministic, keyOnUser, storeFinishReasons, embed,
                semanticMaxTurns, threshold, RouteKeys.SENSITIVE.fallback());
    }

    /**
     * Every key of a route's {@code cache} at its default (see {@code RouteKeys}): exact caching of deterministic
     * requests only, no normalisation, per tenant, complete answers only; when semantic caching is switched on:
     * the last user message of single-turn requests, at the policy's threshold.
     */
    public static RouteCache defaults() {
        return new RouteCache(RouteKeys.EXACT.fallback(), RouteKeys.SEMANTIC.fallback(), RouteKeys.TTL.fallback(),
                RouteKeys.CONTEXT.fallback(), RouteKeys.NORMALIZE.fallback(), RouteKeys.SHARED.fallback(),
                RouteKeys.NONDETERMINISTIC.fallback(), RouteKeys.KEY_ON_USER.fallback(),
                RouteKeys.STORE_FINISH_REASONS.fallback(), RouteKeys.EMBED.fallback(),
                RouteKeys.SEMANTIC_MAX_TURNS.fallback(), RouteKeys.THRESHOLD.fallback(), RouteKeys.SENSITIVE.fallback(),
                RouteKeys.SERVER_STATE.fallback(), RouteKeys.STALE_IF_ERROR.fallback(),
                RouteKeys.STALE_WHILE_REVALIDATE.fallback());
    }
}
