package io.cachegate.cli.analyze;

import java.io.IOException;
import java.io.Reader;

/**
 * Reads lines of at most {@code maxChars} characters: a longer line is skipped to its end and reported as
 * {@link #TOO_LONG}, so one enormous line cannot exhaust the heap ({@code BufferedReader.readLine} would hold it
 * whole). Line ends are {@code \n}, {@code \r\n} or {@code \r}.
 */
final class BoundedLineReader implements AutoCloseable {

    /** Returned instead of a line that exceeded the bound (compare by identity). */
    static final String TOO_LONG = new String("<line too long>");

    private final Reader in;
    private final int maxChars;
    private final char[] buffer = new char[64 * 1024];
    private int position;
    private int limit;
    private boolean pendingCr;

    BoundedLineReader(Reader in, int maxChars) {
        this.in = in;
        this.maxChars = maxChars;
    }

    /** The next line without its end, {@link #TOO_LONG}, or null at the end of the input. */
    String readLine() throws IOException {
        StringBuilder line = new StringBuilder();
        boolean tooLong = false;
        boolean any = false;
        while (true) {
            if (position == limit) {
                limit = in.read(buffer, 0, buffer.length);
                position = 0;
                if (limit <= 0) {
                    limit = 0;
                    return any ? (tooLong ? TOO_LONG : line.toString()) : null;
                }
            }
            char c = buffer[position++];
            if (pendingCr) {
                pendingCr = false;
                if (c == '\n') {
                    continue; // the second half of \r\n
                }
            }
            if (c == '\n' || c == '\r') {
                pendingCr = c == '\r';
                return tooLong ? TOO_LONG : line.toString();
            }
            any = true;
            if (tooLong) {
                continue;
            }
            if (line.length() < maxChars) {
                line.append(c);
            } else {
                tooLong = true;
                line.setLength(0); // release what was read; the rest of the line is skipped
                line.trimToSize();
            }
        }
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
