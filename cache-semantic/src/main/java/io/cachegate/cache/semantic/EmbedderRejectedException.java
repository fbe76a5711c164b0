package io.cachegate.cache.semantic;

import java.util.Objects;

/**
 * An embedding was not attempted: the queue was full or the embedder closed. Expected under load, so it
 * carries no stack trace; the gateway counts it and continues without the semantic layer.
 */
public final class EmbedderRejectedException extends RuntimeException {

    /** Why no vector was computed. */
    public enum Reason { QUEUE_FULL, CLOSED }

    private final Reason reason;

    EmbedderRejectedException(Reason reason, String message) {
        super(message, null, false, false);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public Reason reason() {
        return reason;
    }
}
