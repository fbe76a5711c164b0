package io.cachegate.cache.exact;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * Server-Sent Events framing (the WHATWG algorithm, reduced to {@code data} and {@code event}):
 * lines end with LF, CR or CRLF, a blank line dispatches the event, {@code :} starts a comment.
 * Works on bytes and only decodes a field name or an event type, so a piece boundary inside a
 * UTF-8 sequence or between CR and LF is harmless: both terminators are ASCII and never occur
 * inside a multibyte sequence. Buffers grow to the longest line and event; the caller bounds them
 * by bounding what it feeds.
 */
final class SseEventReader {

    /** Receives each dispatched event; {@code data} is the reader's buffer, valid only during the call. */
    interface Handler {
        void event(String type, byte[] data, int length);
    }

    private static final byte CR = '\r';
    private static final byte LF = '\n';
    private static final byte[] LINE_FEED = {LF};

    private final Handler handler;
    private byte[] line = new byte[256];
    private int lineLength;
    private byte[] data = new byte[256];
    private int dataLength;
    private String type;
    /** The previous piece ended with CR: an LF starting this one belongs to that line ending. */
    private boolean afterCr;
    private boolean released;
    private final int maxBytes;
    private long bytesSeen;

    /** @param maxBytes the bytes read at most, framing included: what comes after is counted, never read */
    SseEventReader(Handler handler, int maxBytes) {
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("maxBytes must be positive, was " + maxBytes);
        }
        this.handler = Objects.requireNonNull(handler, "handler");
        this.maxBytes = maxBytes;
    }

    /**
     * Reads the part of the piece within the first {@code maxBytes} of the body, however the body is cut into
     * pieces; false when the piece went past them (an answer still going there is too large to keep).
     */
    boolean feed(byte[] bytes, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, bytes.length);
        int within = (int) Math.min(length, maxBytes - bytesSeen);
        bytesSeen += length;
        read(bytes, offset, within);
        return within == length;
    }

    int maxBytes() {
        return maxBytes;
    }

    private void read(byte[] bytes, int offset, int length) {
        if (released) {
            return;
        }
        int end = offset + length;
        int i = offset;
        if (afterCr && i < end) { // an empty piece leaves the pending CR pending
            if (bytes[i] == LF) {
                i++;
            }
            afterCr = false;
        }
        while (i < end && !released) {
            int stop = i;
            while (stop < end && bytes[stop] != LF && bytes[stop] != CR) {
                stop++;
            }
            line = append(line, lineLength, bytes, i, stop - i);
            lineLength += stop - i;
            if (stop == end) {
                return;
            }
            i = stop + 1;
            if (bytes[stop] == CR) {
                if (i == end) {
                    afterCr = true;
                } else if (bytes[i] == LF) {
                    i++;
                }
            }
            int completed = lineLength;
            lineLength = 0;
            processLine(completed);
        }
    }

    /** Drops the buffers for good (the caller has given up on the stream). */
    void release() {
        released = true;
        line = new byte[0];
        data = new byte[0];
        lineLength = 0;
        dataLength = 0;
    }

    private void processLine(int length) {
        if (length == 0) {
            dispatch();
            return;
        }
        if (line[0] == ':') {
            return;
        }
        int colon = 0;
        while (colon < length && line[colon] != ':') {
            colon++;
        }
        int valueStart = colon < length ? colon + 1 : length;
        if (valueStart < length && line[valueStart] == ' ') {
            valueStart++;
        }
        if (isField(colon, "data")) {
            data = append(data, dataLength, line, valueStart, length - valueStart);
            dataLength += length - valueStart;
            data = append(data, dataLength, LINE_FEED, 0, 1);
            dataLength++;
        } else if (isField(colon, "event")) {
            type = new String(line, valueStart, length - valueStart, StandardCharsets.UTF_8);
        }
        // id and retry matter to a reconnecting browser, not to an assembler.
    }

    private boolean isField(int nameLength, String name) {
        if (nameLength != name.length()) {
            return false;
        }
        for (int i = 0; i < nameLength; i++) {
            if (line[i] != name.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private void dispatch() {
        String eventType = type;
        type = null;
        if (dataLength == 0) {
            return;
        }
        int length = dataLength - 1; // the LF appended after the last data line
        dataLength = 0;
        handler.event(eventType, data, length);
    }

    private static byte[] append(byte[] buffer, int used, byte[] src, int from, int count) {
        if (count == 0) {
            return buffer;
        }
        byte[] target = buffer;
        if (used + count > buffer.length) {
            target = Arrays.copyOf(buffer, Math.max(used + count, buffer.length * 2));
        }
        System.arraycopy(src, from, target, used, count);
        return target;
    }
}
