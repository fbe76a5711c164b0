package io.cachegate.bench;

import java.util.Objects;

/**
 * What the built-in generator sends: chat completions at temperature 0 whose prompts are drawn
 * uniformly, from a seeded sequence, out of {@code distinctPrompts} distinct texts, so a cache in
 * front of the backend sees repeats at a known rate.
 *
 * @param model the {@code model} field of every request
 * @param distinctPrompts how many different prompt texts exist (at least 1)
 * @param streamFraction share of requests with {@code "stream": true}, in [0, 1]
 * @param maxTokens the {@code max_tokens} field (at least 1)
 * @param seed seeds both the prompt texts and the order in which they are drawn
 */
public record GeneratorSpec(String model, int distinctPrompts, double streamFraction, int maxTokens, long seed) {

    public GeneratorSpec {
        Objects.requireNonNull(model, "model");
        if (model.isBlank()) {
            throw new IllegalArgumentException("model must not be blank");
        }
        if (distinctPrompts < 1) {
            throw new IllegalArgumentException("distinctPrompts must be >= 1 (was " + distinctPrompts + ")");
        }
        if (!(streamFraction >= 0 && streamFraction <= 1)) {
            throw new IllegalArgumentException("streamFraction must be in [0, 1] (was " + streamFraction + ")");
        }
        if (maxTokens < 1) {
            throw new IllegalArgumentException("maxTokens must be >= 1 (was " + maxTokens + ")");
        }
    }

    /** 1,000 distinct prompts, no streaming, 64 tokens, seed 42, for model {@code llama-3.1-8b}. */
    public static GeneratorSpec defaults() {
        return new GeneratorSpec("llama-3.1-8b", 1_000, 0.0, 64, 42L);
    }

    public GeneratorSpec withModel(String value) {
        return new GeneratorSpec(value, distinctPrompts, streamFraction, maxTokens, seed);
    }

    public GeneratorSpec withDistinctPrompts(int value) {
        return new GeneratorSpec(model, value, streamFraction, maxTokens, seed);
    }

    public GeneratorSpec withStreamFraction(double value) {
        return new GeneratorSpec(model, distinctPrompts, value, maxTokens, seed);
    }

    public GeneratorSpec withMaxTokens(int value) {
        return new GeneratorSpec(model, distinctPrompts, streamFraction, value, seed);
    }

    public GeneratorSpec withSeed(long value) {
        return new GeneratorSpec(model, distinctPrompts, streamFraction, maxTokens, value);
    }
}
