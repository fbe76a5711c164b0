package io.cachegate.config;

import java.time.Duration;
import java.util.Objects;

/**
 * Active health checks of a backend's replicas: a GET of {@code path} every {@code interval}; after
 * {@code failuresToEject} failures in a row a replica gets no requests for {@code ejectFor}.
 *
 * @param path an absolute path on each replica, e.g. {@code /v1/models} (any OpenAI server) or
 *     {@code /health} (vLLM, TGI, llama.cpp)
 */
public record HealthSettings(String path, Duration interval, int failuresToEject, Duration ejectFor) {

    public static final String DEFAULT_PATH = BackendKeys.HEALTH_PATH.fallback();

    public HealthSettings {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(ejectFor, "ejectFor");
        if (failuresToEject < 1) {
            throw new IllegalArgumentException("failuresToEject must be at least 1, was " + failuresToEject);
        }
    }

    /** Every key of {@code health} at its default (see {@code BackendKeys}). */
    public static HealthSettings defaults() {
        return new HealthSettings(DEFAULT_PATH, BackendKeys.INTERVAL.fallback(),
                BackendKeys.FAILURES_TO_EJECT.fallback(), BackendKeys.EJECT_FOR.fallback());
    }
}
