package io.cachegate.simulator;

/**
 * A snapshot of a simulator's counters. {@code requests} counts inference calls (chat,
 * completions, embeddings), not health, models or stats; {@code errors} counts the 5xx answers
 * (injected 500s and queue-overflow 503s); {@code cancelled} counts requests whose client went
 * away before the answer was complete; {@code active} and {@code queued} are gauges.
 */
public record SimulatorStats(long requests, long completed, long cancelled, long errors, long hung,
                             int active, int queued) {

    /** The JSON served at {@code GET /sim/stats}. */
    public String toJson() {
        return "{\"requests\":" + requests
                + ",\"completed\":" + completed
                + ",\"cancelled\":" + cancelled
                + ",\"errors\":" + errors
                + ",\"hung\":" + hung
                + ",\"active\":" + active
                + ",\"queued\":" + queued
                + '}';
    }
}
