package io.cachegate.gateway.telemetry.log;

import java.io.PrintStream;

/**
 * Lines on the process's standard output, the container convention. Through {@code System.out}, whose writes are
 * synchronised: a line never interleaves with the application log's lines that logback writes there too.
 */
final class StdoutSink implements LineSink {

    private static final byte[] NEWLINE = {'\n'};

    private final PrintStream out;

    StdoutSink(PrintStream out) {
        this.out = out;
    }

    @Override
    public void write(byte[] line) {
        synchronized (out) { // one line, one piece: the line and its newline together
            out.write(line, 0, line.length);
            out.write(NEWLINE, 0, 1);
        }
    }

    @Override
    public void flush() {
        out.flush();
    }

    @Override
    public void close() {
        out.flush(); // never closes stdout: the process still logs there
    }
}
