package io.cachegate.cache.semantic;

/**
 * An existing index was built for another embedding model, dimension or distance and cannot be used as is.
 * Raised by the Qdrant index, which refuses to drop a collection other gateways may still be using.
 */
public final class IncompatibleIndexException extends IllegalStateException {

    public IncompatibleIndexException(String message) {
        super(message);
    }
}
