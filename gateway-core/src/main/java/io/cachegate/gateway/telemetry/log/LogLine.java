package io.cachegate.gateway.telemetry.log;

/**
 * One line for a {@link LineWriter}, rendered on the writer's thread: a line that needs real work (redacting a
 * request body) does it there, never on the event loop. The bytes end without a newline; the writer adds it.
 */
@FunctionalInterface
public interface LogLine {

    /** The line's bytes (UTF-8 JSON); a line that cannot be rendered throws and is counted as dropped. */
    byte[] render();

    /** A line already rendered. */
    static LogLine of(byte[] bytes) {
        return () -> bytes;
    }
}
