package io.cachegate.gateway.server;

import io.cachegate.gateway.api.ErrorKind;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * A request the gateway answers with an error without taking it through the request path, passed down the
 * pipeline in the request's place so that it is answered in order with the requests before it.
 *
 * @param close whether the connection ends after this answer (a request that could not be read safely)
 * @param requestId the id to answer with, or null
 * @param retryAfterSeconds {@code Retry-After} of a 429 or 503
 * @param headers more headers of the answer (a tenant's {@code x-ratelimit-*})
 * @param tenant the tenant the request was known to be from, or null
 * @param reason the access log's reason: the error's code, or a finer one ({@code quota_requests})
 */
record Refusal(ErrorKind kind, String message, boolean close, String requestId, long retryAfterSeconds,
               HttpHeaders headers, String tenant, String reason) {

    Refusal(ErrorKind kind, String message, boolean close, String requestId) {
        this(kind, message, close, requestId, 1, EmptyHttpHeaders.INSTANCE, null, kind.code());
    }

    static Refusal closing(ErrorKind kind, String message) {
        return new Refusal(kind, message, true, null);
    }

    /** Whether the answer tells the client when to come back: 429 and 503. */
    boolean retryLater() {
        return kind.status() == 429 || kind.status() == 503;
    }
}
