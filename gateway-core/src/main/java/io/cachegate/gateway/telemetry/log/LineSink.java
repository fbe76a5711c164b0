package io.cachegate.gateway.telemetry.log;

import java.io.IOException;

/** Where a {@link LineWriter}'s thread puts lines: stdout or a rotating file. Used by that one thread only. */
public interface LineSink extends AutoCloseable {

    /** Writes {@code line} and a newline, perhaps buffered. */
    void write(byte[] line) throws IOException;

    /** Pushes out what is buffered: the writer calls it whenever its queue runs empty. */
    void flush() throws IOException;

    @Override
    void close() throws IOException;
}
