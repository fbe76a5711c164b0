package io.cachegate.gateway.upstream;

import io.cachegate.gateway.api.ErrorKind;
import io.cachegate.routing.FailureKind;

/** Why an upstream attempt failed, each with the client error it becomes and whether another URL may be tried. */
public enum UpstreamFailure {
    CONNECT_FAILED(ErrorKind.UPSTREAM_UNREACHABLE, true, "connect"),
    POOL_EXHAUSTED(ErrorKind.OVERLOADED, false, "pool_exhausted"),
    /** The connection closed before a response head; retried only on a connection that had been reused. */
    CLOSED_BEFORE_RESPONSE(ErrorKind.UPSTREAM_BAD_RESPONSE, false, "closed_before_response"),
    CLOSED_MID_RESPONSE(ErrorKind.UPSTREAM_BAD_RESPONSE, false, "closed_mid_response"),
    BAD_RESPONSE(ErrorKind.UPSTREAM_BAD_RESPONSE, false, "bad_response"),
    FIRST_BYTE_TIMEOUT(ErrorKind.UPSTREAM_TIMEOUT, false, "first_byte_timeout"),
    IDLE_TIMEOUT(ErrorKind.UPSTREAM_TIMEOUT, false, "idle_timeout"),
    TOTAL_TIMEOUT(ErrorKind.UPSTREAM_TIMEOUT, false, "total_timeout");

    private final ErrorKind errorKind;
    private final boolean retryable;
    private final String metricName;

    UpstreamFailure(ErrorKind errorKind, boolean retryable, String metricName) {
        this.errorKind = errorKind;
        this.retryable = retryable;
        this.metricName = metricName;
    }

    public ErrorKind errorKind() {
        return errorKind;
    }

    /** True when nothing reached the backend's model, so another URL can safely be tried. */
    public boolean retryable() {
        return retryable;
    }

    public String metricName() {
        return metricName;
    }

    /**
     * Whether this failure before the response head speaks against the replica: not when a pool of our own is
     * full, and not a first-byte timeout of a non-streamed request (its first byte comes only when the whole
     * answer is generated: see {@link FailureKind#countsAgainstReplica(boolean)}).
     */
    public boolean countsAgainstReplica(boolean streamed) {
        return this != POOL_EXHAUSTED
                && (this != FIRST_BYTE_TIMEOUT || FailureKind.TIMEOUT_BEFORE_FIRST_BYTE.countsAgainstReplica(streamed));
    }

    /** What the client is told when this failure ends an exchange with {@code backend}. */
    public String message(String backend) {
        return switch (this) {
            case CONNECT_FAILED -> "Backend '" + backend + "' is unreachable";
            case POOL_EXHAUSTED -> "Backend '" + backend + "' has no free connection; try again later";
            case FIRST_BYTE_TIMEOUT, IDLE_TIMEOUT, TOTAL_TIMEOUT -> "Backend '" + backend + "' did not answer in time";
            default -> "Backend '" + backend + "' sent an invalid or incomplete answer";
        };
    }
}
