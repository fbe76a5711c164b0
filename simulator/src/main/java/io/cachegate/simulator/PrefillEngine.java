package io.cachegate.simulator;

/**
 * When a replica's prefills are computed: with {@code --shared-prefill} one at a time, first come first served, as
 * an engine's steps share one accelerator (vLLM schedules the waiting prompts' tokens into each step under a token
 * budget, oldest first, and a step takes longer the more tokens it computes: two 2,000-token prompts arriving
 * together take about as long as one 4,000-token prompt, and the second's first token comes after both); without
 * it, every running request prefills at its own pace, however many run. A prompt found wholly cached takes no
 * compute and waits for no one. A request cancelled during its prefill keeps its share of the clock (vLLM would
 * free it at its next step): a simplification on the side of a busier replica.
 */
final class PrefillEngine {

    private final boolean shared;
    /** With {@link #shared}: when the prefills reserved so far are all computed. */
    private long freeAt;
    private boolean idle = true;

    PrefillEngine(boolean shared) {
        this.shared = shared;
    }

    /**
     * When a prefill of {@code prefillNanos} that may start at {@code startAt} ends, reserving the engine's time
     * for it when shared.
     */
    synchronized long prefilledAt(long startAt, long prefillNanos) {
        if (!shared || prefillNanos <= 0) {
            return startAt + Math.max(0, prefillNanos);
        }
        long begin = idle || freeAt - startAt < 0 ? startAt : freeAt;
        freeAt = begin + prefillNanos;
        idle = false;
        return freeAt;
    }
}
