package io.cachegate.cache.exact;

/** A stored entry that cannot be decoded (garbage, truncation, unknown version); the caller treats it as a miss. */
public final class CorruptEntryException extends RuntimeException {

    public CorruptEntryException(String message) {
        super(message);
    }

    public CorruptEntryException(String message, Throwable cause) {
        super(message, cause);
    }
}
