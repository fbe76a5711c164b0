package io.cachegate.bench;

import io.netty.buffer.ByteBuf;
import io.netty.util.ByteProcessor;

/**
 * Notices {@code [DONE]} in an SSE body, across chunk boundaries, without copying: the end marker
 * of an OpenAI stream. The pattern has no proper prefix that is also a suffix, so a one-step
 * fallback on mismatch is exact.
 */
final class SseDoneScanner implements ByteProcessor {

    private static final byte[] PATTERN = {'[', 'D', 'O', 'N', 'E', ']'};

    private int matched;
    private boolean found;

    void reset() {
        matched = 0;
        found = false;
    }

    boolean found() {
        return found;
    }

    void scan(ByteBuf content) {
        if (!found && content.isReadable()) {
            content.forEachByte(this);
        }
    }

    @Override
    public boolean process(byte value) {
        if (value == PATTERN[matched]) {
            if (++matched == PATTERN.length) {
                found = true;
                return false;
            }
        } else {
            matched = value == PATTERN[0] ? 1 : 0;
        }
        return true;
    }
}
