package io.cachegate.routing;

import java.util.Objects;

/**
 * Where one request is sent: the backend, the model to put in the upstream request (and in the
 * {@code X-Cachegate-Model} response header), and why.
 */
public record ServeTarget(String backend, String model, ServeReason reason) {

    public ServeTarget {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(reason, "reason");
    }

    /** True when the route's fallback serves rather than its primary. */
    public boolean fallback() {
        return reason.fallback();
    }
}
