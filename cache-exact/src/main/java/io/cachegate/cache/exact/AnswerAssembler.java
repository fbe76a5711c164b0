package io.cachegate.cache.exact;

import java.util.Optional;

/**
 * Turns a streamed answer (the raw SSE body, fed in any pieces) into the non-streaming document it stands for,
 * so a streamed miss can be stored; memory bounded by the {@code maxBytes} it was made with. One per answer.
 */
public interface AnswerAssembler {

    /** The assembler for a stream from the {@code kind} endpoint. */
    static AnswerAssembler of(RequestKind kind, int maxBytes) {
        return kind == RequestKind.RESPONSE ? new ResponsesStreamAssembler(maxBytes) : new StreamAssembler(maxBytes);
    }

    /** Feeds the next piece of the body; never throws on bad input (the answer becomes unstorable instead). */
    void feed(byte[] bytes, int offset, int length);

    /** The equivalent non-streaming document as JSON once the stream ended well; empty otherwise. */
    Optional<byte[]> completeDocument();
}
