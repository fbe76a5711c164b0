package io.cachegate.gateway.server;

import io.netty.buffer.ByteBuf;

/**
 * What {@link StrictServerCodec} learns from a request head's raw bytes as they arrive, in pieces of any size: the
 * request line as sent (Netty's decoder reads it leniently) and whether a header line starts with a space or tab
 * (obs-fold). The request line is read byte by byte; after it, only the byte after each line feed matters, so the
 * headers are searched for line feeds (Netty's word-at-a-time search) instead of visited byte by byte.
 */
final class HeadScan {

    private static final int MAX_LINE = 16 * 1024;

    private boolean sawLine;
    private boolean lineDone;
    private boolean lastWasLf;
    private boolean folded;
    /** The request line as sent; bounded by {@code MAX_LINE} (the decoder refuses a longer one anyway). */
    private final StringBuilder requestLine = new StringBuilder();

    /** Reads the head bytes {@code [from, to)} of {@code buffer}, which follow those read before. */
    void scan(ByteBuf buffer, int from, int to) {
        int i = from;
        while (i < to && !lineDone) {
            lineByte(buffer.getByte(i++));
        }
        if (i >= to) {
            return;
        }
        if (lastWasLf && isBlank(buffer.getByte(i))) {
            folded = true;
        }
        for (int lf = buffer.indexOf(i, to, (byte) '\n'); lf >= 0 && lf + 1 < to;
                lf = buffer.indexOf(lf + 1, to, (byte) '\n')) {
            if (isBlank(buffer.getByte(lf + 1))) {
                folded = true;
            }
        }
        lastWasLf = buffer.getByte(to - 1) == '\n';
    }

    /** One byte up to the end of the request line: blank lines before it are skipped, its CRs dropped. */
    private void lineByte(byte b) {
        if (sawLine) {
            if (b == '\n') {
                lineDone = true;
            } else if (b != '\r' && requestLine.length() <= MAX_LINE) {
                requestLine.append((char) (b & 0xFF));
            }
        } else if (b != '\r' && b != '\n' && !isBlank(b)) {
            requestLine.append((char) (b & 0xFF));
            sawLine = true;
        }
        lastWasLf = b == '\n';
    }

    private static boolean isBlank(byte b) {
        return b == ' ' || b == '\t';
    }

    /** True when a header line of this head started with a space or tab. */
    boolean folded() {
        return folded;
    }

    CharSequence requestLine() {
        return requestLine;
    }

    /** Forgets this head: the next bytes are the next request's. */
    void reset() {
        sawLine = false;
        lineDone = false;
        lastWasLf = false;
        folded = false;
        requestLine.setLength(0);
    }
}
