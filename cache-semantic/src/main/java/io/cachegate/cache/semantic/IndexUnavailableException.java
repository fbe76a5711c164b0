package io.cachegate.cache.semantic;

/**
 * A vector index could not serve a call: its queue is full, it is closed, or its backend is down. Callers
 * treat it as a semantic miss and keep serving (fail open).
 */
public final class IndexUnavailableException extends RuntimeException {

    public IndexUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }

    public IndexUnavailableException(String message) {
        super(message);
    }
}
