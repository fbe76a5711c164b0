package io.cachegate.routing;

import java.util.Objects;

/**
 * Where one request is sent: the backend, the model to put in the upstream request (and in the
 * {@code X-Cachegate-Model} response header), why, and which hop of the route's chain that is.
 *
 * @param hop 0 for the route's primary, n for the n-th entry of its fallback chain
 */
public record ServeTarget(String backend, String model, ServeReason reason, int hop) {

    public ServeTarget {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(reason, "reason");
        if (hop < 0) {
            throw new IllegalArgumentException("hop must not be negative, was " + hop);
        }
    }

    /** The route's primary (hop 0). */
    public static ServeTarget primary(String backend, String model, ServeReason reason) {
        return new ServeTarget(backend, model, reason, 0);
    }

    /** True when a hop of the route's fallback chain serves rather than its primary. */
    public boolean fallback() {
        return reason.fallback();
    }

    boolean sameTarget(String otherBackend, String otherModel) {
        return backend.equals(otherBackend) && model.equals(otherModel);
    }
}
