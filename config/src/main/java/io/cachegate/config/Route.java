package io.cachegate.config;

import java.util.Objects;
import java.util.Optional;

/**
 * A rule choosing the backend, traffic class and cache behaviour for the requests it matches.
 *
 * @param index position in the policy's {@code routes} list (0-based), for metrics and messages
 * @param backend the backend to use; empty means the first backend whose models match
 * @param fallback the backend tried when the backend is down, or for a class that may degrade under overload
 * @param fallbackModel the model to ask the fallback for; empty means the request's own model
 * @param defaultMaxTokens output tokens assumed for a request's cost when it gives no {@code max_tokens}
 * @param tokenizer a HuggingFace {@code tokenizer.json} that counts the prompt tokens of a request's cost;
 *                  empty to estimate them from the text
 */
public record Route(int index, RouteMatch match, Optional<String> backend, Optional<String> fallback,
                    String trafficClass, RouteCache cache, Optional<String> fallbackModel, int defaultMaxTokens,
                    Optional<String> tokenizer) {

    public static final int DEFAULT_MAX_TOKENS = RouteKeys.DEFAULT_MAX_TOKENS.fallback();

    public Route {
        Objects.requireNonNull(match, "match");
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(fallback, "fallback");
        Objects.requireNonNull(trafficClass, "trafficClass");
        Objects.requireNonNull(cache, "cache");
        Objects.requireNonNull(fallbackModel, "fallbackModel");
        Objects.requireNonNull(tokenizer, "tokenizer");
        if (defaultMaxTokens < 1) {
            throw new IllegalArgumentException("defaultMaxTokens must be at least 1, was " + defaultMaxTokens);
        }
    }

    /** A route whose fallback keeps the request's model, with the default {@code default_max_tokens}. */
    public Route(int index, RouteMatch match, Optional<String> backend, Optional<String> fallback,
                 String trafficClass, RouteCache cache) {
        this(index, match, backend, fallback, trafficClass, cache, Optional.empty(), DEFAULT_MAX_TOKENS);
    }

    /** A route that estimates prompt tokens from the text. */
    public Route(int index, RouteMatch match, Optional<String> backend, Optional<String> fallback,
                 String trafficClass, RouteCache cache, Optional<String> fallbackModel, int defaultMaxTokens) {
        this(index, match, backend, fallback, trafficClass, cache, fallbackModel, defaultMaxTokens, Optional.empty());
    }
}
