package io.cachegate.admission;

import java.util.OptionalLong;

/**
 * Estimates how many tokens a text is, without the backend's tokenizer: admission only needs a
 * weight, and over-estimating is the safe side. A real tokenizer can be plugged in later.
 */
@FunctionalInterface
public interface TokenEstimator {

    /** Estimated tokens of {@code text}; 0 for empty text. */
    long estimate(CharSequence text);

    /**
     * A request's weight: its prompt estimate plus the tokens it may generate, which is its
     * {@code max_tokens} when given (and positive), else {@code defaultMaxTokens} (the route's default).
     */
    default long cost(CharSequence prompt, OptionalLong maxTokens, long defaultMaxTokens) {
        long completion = maxTokens.isPresent() && maxTokens.getAsLong() > 0 ? maxTokens.getAsLong() : defaultMaxTokens;
        return estimate(prompt) + Math.max(0, completion);
    }

    /** The heuristic described in {@link HeuristicTokenEstimator}. */
    static TokenEstimator heuristic() {
        return new HeuristicTokenEstimator();
    }
}
