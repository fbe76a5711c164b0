package io.cachegate.routing;

import java.util.Objects;
import java.util.Optional;

/**
 * A backend and, optionally, the model to ask it for, as a route names its primary or fallback.
 *
 * @param model empty to keep the model the request named
 */
public record ModelTarget(String backend, Optional<String> model) {

    public ModelTarget {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(model, "model");
    }

    public static ModelTarget of(String backend) {
        return new ModelTarget(backend, Optional.empty());
    }

    public static ModelTarget of(String backend, String model) {
        return new ModelTarget(backend, Optional.of(model));
    }
}
