package io.cachegate.cache.exact;

import java.util.Optional;

/**
 * Turns a streamed answer (the raw SSE body, fed in any pieces) into the non-streaming document it stands for,
 * so a streamed miss can be stored; memory bounded by the {@code maxBytes} it was made with. One per answer,
 * made by its {@link Dialect#assembler}.
 */
public interface AnswerAssembler {

    /** Feeds the next piece of the body; never throws on bad input (the answer becomes unstorable instead). */
    void feed(byte[] bytes, int offset, int length);

    /** The equivalent non-streaming document as JSON once the stream ended well; empty otherwise. */
    Optional<byte[]> completeDocument();
}
