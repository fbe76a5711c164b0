package io.cachegate.gateway.server;

import io.cachegate.gateway.api.ErrorKind;

/**
 * A request the gateway answers with an error without taking it through the request path, passed down the
 * pipeline in the request's place so that it is answered in order with the requests before it.
 *
 * @param close whether the connection ends after this answer (a request that could not be read safely)
 * @param requestId the id to answer with, or null
 */
record Refusal(ErrorKind kind, String message, boolean close, String requestId) {

    static Refusal closing(ErrorKind kind, String message) {
        return new Refusal(kind, message, true, null);
    }
}
