package io.cachegate.config;

import java.util.Objects;
import java.util.Optional;

/**
 * A rule choosing the backend, traffic class and cache behaviour for the requests it matches.
 *
 * @param index position in the policy's {@code routes} list (0-based), for metrics and messages
 * @param backend the backend to use; empty means the first backend whose models match
 */
public record Route(int index, RouteMatch match, Optional<String> backend, Optional<String> fallback,
                    String trafficClass, RouteCache cache) {

    public Route {
        Objects.requireNonNull(match, "match");
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(fallback, "fallback");
        Objects.requireNonNull(trafficClass, "trafficClass");
        Objects.requireNonNull(cache, "cache");
    }
}
