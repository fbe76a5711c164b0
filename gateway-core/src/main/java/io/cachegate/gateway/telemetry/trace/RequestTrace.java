package io.cachegate.gateway.telemetry.trace;

import io.cachegate.cache.exact.OriginSpan;
import io.netty.handler.codec.http.HttpHeaders;
import java.net.URI;

/**
 * One exchange's trace as the stages see it: start a child span for a stage's work, link the answer's origin, name
 * the upstream call. {@link #OFF} (tracing off, or a request nobody traces) does nothing and allocates nothing.
 */
public interface RequestTrace {

    /** No trace: every method does nothing; {@link #start} returns {@link StageSpan#NONE}. */
    RequestTrace OFF = new RequestTrace() {
    };

    /** Starts a child span of the request's span, now; the caller ends it. */
    default StageSpan start(String name) {
        return StageSpan.NONE;
    }

    /** Links the request's span to the span that produced the answer it serves (a hit's entry, a leader's call). */
    default void link(OriginSpan origin) {
    }

    /** The request's span, to store with the answer it generates; null when it is not traced or not sampled. */
    default OriginSpan origin() {
        return null;
    }

    /**
     * An upstream attempt begins: starts its CLIENT span (ending the previous attempt's, which failed) and writes
     * its {@code traceparent} into the upstream request's headers.
     *
     * @param model the model the backend is asked for
     */
    default void upstreamCall(URI replica, String model, HttpHeaders upstreamHeaders) {
    }
}
