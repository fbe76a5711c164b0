package io.cachegate.admission;

/**
 * Why a request was not admitted, with the HTTP status the gateway answers it with (one place): 429 when
 * it is turned away on arrival, so the client backs off by Retry-After; 503 when it waited its whole max
 * queue time, so the backend was too slow rather than the client too fast.
 */
public enum RejectReason {
    /** Its class's queue holds its maximum of requests or tokens. */
    QUEUE_FULL(429),
    /** The estimated wait (backlog ahead / rate available to its class) exceeds the class's max queue time. */
    WAIT_TOO_LONG(429),
    /** It waited in the queue longer than the class's max queue time. */
    QUEUE_TIMEOUT(503),
    /** Its class is pausable and the pool is overloaded. */
    OVERLOAD_PAUSED(429),
    /** The client went away while it was queued ({@link Ticket#cancel()}); nobody reads the answer. */
    CANCELLED(499);

    private final int httpStatus;

    RejectReason(int httpStatus) {
        this.httpStatus = httpStatus;
    }

    public int httpStatus() {
        return httpStatus;
    }

    /** The lowercase name, for metric tags and logs. */
    public String tag() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
