package io.cachegate.routing;

import java.util.Optional;

/**
 * How an upstream attempt failed, as far as retries and circuit breaking care. "First byte" means
 * the first byte forwarded to the client: once the client has seen part of an answer, another
 * replica cannot continue it.
 */
public enum FailureKind {
    /** No connection (refused, reset, DNS, connect timeout). */
    CONNECT_FAILED(true, true),
    /** A 5xx status before anything was forwarded. */
    STATUS_5XX(true, true),
    /** A 429: the replica is busy, not broken; another replica may have room. */
    STATUS_429(true, false),
    /**
     * No response (headers or first byte) within the timeout. Counts against the replica only on a streamed
     * request (see {@link #countsAgainstReplica(boolean)}).
     */
    TIMEOUT_BEFORE_FIRST_BYTE(true, true),
    /** The upstream broke after bytes reached the client: never retried. */
    AFTER_FIRST_BYTE(false, true);

    private final boolean retryable;
    private final boolean replicaFault;

    FailureKind(boolean retryable, boolean replicaFault) {
        this.retryable = retryable;
        this.replicaFault = replicaFault;
    }

    /** Whether another attempt may be made on another replica. */
    public boolean retryable() {
        return retryable;
    }

    /** Whether the gateway should call {@link ReplicaSet#recordFailure} (a 429 is load, not ill health). */
    public boolean countsAgainstReplica() {
        return replicaFault;
    }

    /**
     * Whether this failure of a request says the replica is unwell, given whether the request was
     * {@code streamed}. A first-byte timeout on a non-streamed request never counts: its first byte comes only
     * once the whole answer is generated, so the wait grows with the request's {@code max_tokens} and says
     * nothing about the replica (the request's own timeout still ends it). A streamed answer's head comes
     * before generation, so a timeout there counts. Every other kind is as {@link #countsAgainstReplica()}.
     */
    public boolean countsAgainstReplica(boolean streamed) {
        return this == TIMEOUT_BEFORE_FIRST_BYTE ? streamed : replicaFault;
    }

    /** The kind for an upstream status received before any byte was forwarded; empty when not a failure here. */
    public static Optional<FailureKind> ofStatus(int status) {
        if (status == 429) {
            return Optional.of(STATUS_429);
        }
        if (status >= 500 && status <= 599) {
            return Optional.of(STATUS_5XX);
        }
        return Optional.empty();
    }
}
