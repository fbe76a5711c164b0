package io.cachegate.gateway.exchange;

/**
 * One step of the request path. A stage either answers the exchange (writes a response and finishes it) or hands
 * it to the next stage, now or later (after a store lookup, an admission queue), always on the exchange's event
 * loop (see {@link Exchange#resume}). A stage keeps no per-request state in its fields: that lives in the
 * {@link Exchange}. Errors a client caused are thrown as {@code ApiException} and answered by the chain.
 */
@FunctionalInterface
public interface Stage {

    void handle(Exchange x, Next next);

    /** The rest of the chain after a stage. */
    @FunctionalInterface
    interface Next {
        void proceed(Exchange x);
    }
}
