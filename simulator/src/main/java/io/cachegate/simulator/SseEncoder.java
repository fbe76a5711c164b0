package io.cachegate.simulator;

/** Server-Sent Events framing as vLLM writes it: {@code data: <json>\n\n}, ending with {@code data: [DONE]\n\n}. */
final class SseEncoder {

    private SseEncoder() {
    }

    /** Starts an event; the caller appends one JSON object, then calls {@link #endEvent}. */
    static StringBuilder beginEvent(StringBuilder out) {
        return out.append("data: ");
    }

    static StringBuilder endEvent(StringBuilder out) {
        return out.append("\n\n");
    }

    static StringBuilder done(StringBuilder out) {
        return out.append("data: [DONE]\n\n");
    }
}
