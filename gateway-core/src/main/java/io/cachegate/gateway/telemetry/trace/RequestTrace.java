package io.cachegate.gateway.telemetry.trace;

import io.cachegate.cache.exact.OriginSpan;
import io.netty.handler.codec.http.HttpHeaders;
import java.net.URI;

/**
 * One exchange's trace as the work that outlives its stages sees it: a child span for a write after the answer,
 * the request's own span to store with its answer, the upstream call. The stages' own spans are made from the
 * finished record, not here. {@link #OFF} (tracing off, or a request nobody traces) does nothing and allocates
 * nothing.
 */
public interface RequestTrace {

    /** No trace: every method does nothing; {@link #start} returns {@link StageSpan#NONE}. */
    RequestTrace OFF = new RequestTrace() {
    };

    /** Starts a child span of the request's span, now; the caller ends it. */
    default StageSpan start(String name) {
        return StageSpan.NONE;
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
