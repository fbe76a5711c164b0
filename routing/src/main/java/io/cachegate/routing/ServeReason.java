package io.cachegate.routing;

/** Why a request goes where {@link FallbackResolver} sends it. */
public enum ServeReason {
    /** The route's primary, as usual. */
    PRIMARY(false),
    /** Every primary replica is down; the fallback serves. */
    PRIMARY_DOWN(true),
    /** The class may degrade and admission asked for it; the fallback serves. */
    DEGRADED(true),
    /** The primary rejected the prompt as too long for its context; retried once on the fallback. */
    CONTEXT_LENGTH(true),
    /** The primary is down and there is no usable fallback: answer 503 without trying. */
    UNAVAILABLE(false);

    private final boolean fallback;

    ServeReason(boolean fallback) {
        this.fallback = fallback;
    }

    /** True when the fallback serves. */
    public boolean fallback() {
        return fallback;
    }
}
