package io.cachegate.admission;

import java.time.Duration;

/**
 * Events for metrics and logs. Called after the controller's lock is released, on the thread whose
 * call caused the event ({@code offer}, {@code tick}, a release or a cancel); keep it quick.
 */
public interface AdmissionListener {

    /** A request of {@code tenant} got capacity; {@code waited} is its queue time (zero when admitted at once). */
    default void onDispatched(String trafficClass, String tenant, Duration waited, boolean degraded) {
    }

    /** A request was rejected, on arrival or while queued. */
    default void onRejected(String trafficClass, RejectReason reason) {
    }

    /** The pool entered or left overload; the signals are those of the evaluation that decided it. */
    default void onOverloadChanged(boolean overloaded, Duration queueAge, long pendingTokens) {
    }
}
