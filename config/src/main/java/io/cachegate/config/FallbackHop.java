package io.cachegate.config;

import java.util.Objects;
import java.util.Optional;

/**
 * One hop of a route's fallback chain, or its primary (hop 0): a backend and, optionally, the model to ask it for.
 *
 * @param model empty to keep the model the request named
 */
public record FallbackHop(String backend, Optional<String> model) {

    public FallbackHop {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(model, "model");
    }

    public static FallbackHop of(String backend) {
        return new FallbackHop(backend, Optional.empty());
    }

    public static FallbackHop of(String backend, String model) {
        return new FallbackHop(backend, Optional.of(model));
    }

    /** As the policy would write it: {@code small} or {@code small/qwen2.5-0.5b}. */
    @Override
    public String toString() {
        return model.map(m -> backend + "/" + m).orElse(backend);
    }
}
