package io.cachegate.routing;

/** Why a request goes where {@link FallbackResolver} sends it. */
public enum ServeReason {
    /** The route's primary, as usual. */
    PRIMARY(false),
    /** Every replica of the primary (and of any hop before this one) is down or refused the connection. */
    PRIMARY_DOWN(true),
    /** The class may degrade and admission asked for it; a hop of the chain serves. */
    DEGRADED(true),
    /** The model before rejected the prompt as too long for its context; retried on the next hop. */
    CONTEXT_LENGTH(true),
    /** The primary is down and no hop of the chain is up: answer 503 without trying. */
    UNAVAILABLE(false);

    private final boolean fallback;

    ServeReason(boolean fallback) {
        this.fallback = fallback;
    }

    /** True when a hop of the fallback chain serves. */
    public boolean fallback() {
        return fallback;
    }
}
