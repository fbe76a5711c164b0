package io.cachegate.gateway.server;

import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;
import java.util.Arrays;

/**
 * What {@link StrictServerCodec} learns from a request head's raw bytes as they arrive, in pieces of any size: the
 * request line as sent (Netty's decoder reads it leniently) and whether a header line starts with a space or tab
 * (obs-fold). The request line is copied up to its line feed; after it, only the byte after each line feed matters,
 * so the headers are searched for line feeds (Netty's word-at-a-time search) instead of visited byte by byte.
 */
final class HeadScan {

    private static final int MAX_LINE = 16 * 1024;

    private boolean sawLine;
    private boolean lineDone;
    private boolean lastWasLf;
    private boolean folded;
    /**
     * The request line as sent, CRs dropped, one byte a char; bounded by {@code MAX_LINE} (the decoder refuses a
     * longer one anyway). Bytes copied in bulk, not appended one by one: it was ~1% of a cached answer's CPU.
     */
    private byte[] line = new byte[128];
    private int lineLength;

    /** Reads the head bytes {@code [from, to)} of {@code buffer}, which follow those read before. */
    void scan(ByteBuf buffer, int from, int to) {
        int i = from;
        while (i < to && !sawLine) { // blank lines (and blanks) before the request line are skipped
            byte b = buffer.getByte(i);
            if (b != '\r' && b != '\n' && !isBlank(b)) {
                sawLine = true;
            } else {
                lastWasLf = b == '\n';
                i++;
            }
        }
        if (i < to && !lineDone) {
            int lf = buffer.indexOf(i, to, (byte) '\n');
            appendLine(buffer, i, lf < 0 ? to : lf);
            lineDone = lf >= 0;
            lastWasLf = lf >= 0;
            i = lf < 0 ? to : lf + 1;
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

    /** The request line's bytes {@code [from, to)} of {@code buffer}, without their CRs, up to the bound. */
    private void appendLine(ByteBuf buffer, int from, int to) {
        int n = Math.min(to - from, MAX_LINE + 1 - lineLength);
        if (n <= 0) {
            return;
        }
        if (lineLength + n > line.length) {
            line = Arrays.copyOf(line, Math.max(lineLength + n, line.length * 2));
        }
        buffer.getBytes(from, line, lineLength, n);
        int end = lineLength + n;
        int kept = lineLength;
        for (int j = lineLength; j < end; j++) {
            if (line[j] != '\r') {
                line[kept++] = line[j];
            }
        }
        lineLength = kept;
    }

    private static boolean isBlank(byte b) {
        return b == ' ' || b == '\t';
    }

    /** True when a header line of this head started with a space or tab. */
    boolean folded() {
        return folded;
    }

    /** The request line as sent, one char per byte (0–255), CRs dropped: a view, valid until {@link #reset}. */
    CharSequence requestLine() {
        return new AsciiString(line, 0, lineLength, false);
    }

    /** Forgets this head: the next bytes are the next request's. */
    void reset() {
        sawLine = false;
        lineDone = false;
        lastWasLf = false;
        folded = false;
        lineLength = 0;
    }
}
