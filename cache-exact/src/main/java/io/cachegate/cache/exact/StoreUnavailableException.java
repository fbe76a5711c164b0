package io.cachegate.cache.exact;

/** The store cannot answer now (not connected, queue full, timed out); the caller serves a miss. */
public final class StoreUnavailableException extends RuntimeException {

    public StoreUnavailableException(String message) {
        super(message, null, false, false);
    }

    public StoreUnavailableException(String message, Throwable cause) {
        // No stack trace: this is expected while Redis is down and may happen per request.
        super(message, cause, false, false);
    }
}
