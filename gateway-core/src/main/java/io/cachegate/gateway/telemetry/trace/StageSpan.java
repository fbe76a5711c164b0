package io.cachegate.gateway.telemetry.trace;

/**
 * A span in progress of work that outlives the stages (an answer's write to the store, its vector's to the index):
 * ended once, as done or failed. {@link #NONE} does nothing.
 */
public interface StageSpan {

    StageSpan NONE = new StageSpan() {
    };

    /** Ends the span as failed, with a short reason. */
    default void fail(String reason) {
    }

    default void end() {
    }
}
