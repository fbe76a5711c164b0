package io.cachegate.gateway.exchange;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpResponse;

/**
 * Observes an exchange's answer as it leaves, whoever writes it (the relay, a hit, a coalesced follower), without
 * owning any of it: the cache uses taps to assemble the answer it stores and to share a live answer with coalesced
 * requests; {@link Answer#source()} says where the answer comes from. Called on the exchange's event loop; a tap must
 * not block and must copy what it keeps. A tap told {@link #onAbort} hears nothing more.
 */
public interface ResponseTap {

    /** The head the client is sent (status and end-to-end headers; the headers stages set are added after the taps). */
    void onHead(HttpResponse head);

    /** A piece of the body; {@code content} is only borrowed for the duration of the call. */
    void onContent(ByteBuf content);

    /** The whole answer reached the client's connection. */
    void onComplete();

    /** The answer will not complete (upstream failure, client gone, error answer instead). */
    void onAbort();

    /**
     * The answer will come from a hop of the route's fallback chain, {@code model} on {@code backend}, not the model
     * the request names: a cache files it under the model that answers, never under the request's key. Called
     * before the answer starts, once per hop the request moves to (the last call names the hop that answers).
     */
    default void onFallback(String backend, String model) {
    }

    /**
     * True when someone besides the client needs the rest of the answer (requests coalesced onto
     * it): a client that leaves then does not cancel the upstream call.
     */
    default boolean needsRest() {
        return false;
    }
}
