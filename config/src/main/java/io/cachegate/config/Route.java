package io.cachegate.config;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A rule choosing the backend, traffic class and cache behaviour for the requests it matches.
 *
 * @param index position in the policy's {@code routes} list (0-based), for messages
 * @param name the route's own name, its {@link #label()}; empty to be labelled by its index
 * @param backend the backend to use; empty means the first backend whose models match
 * @param fallbacks the chain tried in order when the backend is down, for a class that may degrade under overload,
 *                  or after a context-length error; empty for none
 * @param defaultMaxTokens output tokens assumed for a request's cost when it gives no {@code max_tokens}
 * @param tokenizer a HuggingFace {@code tokenizer.json} that counts the prompt tokens of a request's cost;
 *                  empty to estimate them from the text
 */
public record Route(int index, Optional<String> name, RouteMatch match, Optional<String> backend,
                    List<FallbackHop> fallbacks, String trafficClass, RouteCache cache, int defaultMaxTokens,
                    Optional<String> tokenizer) {

    public static final int DEFAULT_MAX_TOKENS = RouteKeys.DEFAULT_MAX_TOKENS.fallback();

    public Route {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(match, "match");
        Objects.requireNonNull(backend, "backend");
        fallbacks = List.copyOf(fallbacks);
        Objects.requireNonNull(trafficClass, "trafficClass");
        Objects.requireNonNull(cache, "cache");
        Objects.requireNonNull(tokenizer, "tokenizer");
        if (defaultMaxTokens < 1) {
            throw new IllegalArgumentException("defaultMaxTokens must be at least 1, was " + defaultMaxTokens);
        }
    }

    /**
     * An unnamed route with at most one fallback, which keeps the request's model, and the default
     * {@code default_max_tokens}.
     */
    public Route(int index, RouteMatch match, Optional<String> backend, Optional<String> fallback,
                 String trafficClass, RouteCache cache) {
        this(index, Optional.empty(), match, backend, fallback.map(FallbackHop::of).stream().toList(), trafficClass,
                cache, DEFAULT_MAX_TOKENS, Optional.empty());
    }

    /**
     * What metrics, logs, traces, the error budget's evidence and the status page call the route: its name, else its
     * index (a name stays when routes are reordered or gateways of a fleet list them in another order).
     */
    public String label() {
        return name.orElseGet(() -> Integer.toString(index));
    }
}
