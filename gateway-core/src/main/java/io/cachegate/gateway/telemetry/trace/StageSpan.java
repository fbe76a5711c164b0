package io.cachegate.gateway.telemetry.trace;

/** A stage's span in progress: a few attributes, then {@link #end()} once. {@link #NONE} does nothing. */
public interface StageSpan {

    StageSpan NONE = new StageSpan() {
    };

    default StageSpan set(String key, String value) {
        return this;
    }

    default StageSpan set(String key, long value) {
        return this;
    }

    default StageSpan set(String key, double value) {
        return this;
    }

    /**
     * Records a finished child measured by someone else (the embedder's, the index's timings): it began {@code
     * offsetNanos} after this span and lasted {@code durationNanos}.
     */
    default void child(String name, long offsetNanos, long durationNanos) {
    }

    /** Ends the span as failed, with a short reason. */
    default void fail(String reason) {
    }

    default void end() {
    }
}
