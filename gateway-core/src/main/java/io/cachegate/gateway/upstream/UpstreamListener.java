package io.cachegate.gateway.upstream;

import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;

/**
 * Receives one upstream call's answer, on the call's event loop. Reading is demand-driven: after a
 * batch ({@link #onReadComplete}) nothing more is read until the listener calls
 * {@link UpstreamCall#requestMore()}, which is how a slow client slows the backend down.
 */
public interface UpstreamListener {

    /** The response head. Return false to abandon the call (its connection is closed, nothing more arrives). */
    boolean onResponseHead(UpstreamCall call, HttpResponse head);

    /** A piece of the body; the listener owns (and must release or pass on) it. The last one is a LastHttpContent. */
    void onContent(UpstreamCall call, HttpContent content);

    /** The end of one read batch that was not the end of the answer. */
    void onReadComplete(UpstreamCall call);

    /** The call failed; no further callbacks follow. */
    void onFailure(UpstreamCall call, UpstreamFailure failure, Throwable cause);
}
