package io.cachegate.cli.analyze;

import java.io.PrintStream;
import java.util.Locale;

/**
 * A one-line progress display on standard error, redrawn in place at most four times a second: the share of the
 * file's bytes read, lines and requests per second. picocli has none; a carriage return is all it takes.
 */
final class ProgressLine {

    private static final long REDRAW_NANOS = 250_000_000L;

    private final PrintStream out;
    private final long totalBytes;
    private final long started = System.nanoTime();
    private long lastDrawn;
    private boolean drawn;

    ProgressLine(PrintStream out, long totalBytes) {
        this.out = out;
        this.totalBytes = totalBytes;
        this.lastDrawn = started - REDRAW_NANOS; // the first update draws
    }

    void update(long bytesRead, long lines) {
        long now = System.nanoTime();
        if (now - lastDrawn < REDRAW_NANOS) {
            return;
        }
        lastDrawn = now;
        drawn = true;
        double seconds = Math.max(1e-9, (now - started) / 1e9);
        int percent = totalBytes > 0 ? (int) Math.min(100, bytesRead * 100 / totalBytes) : 0;
        int filled = percent / 5;
        out.printf(Locale.ROOT, "\ranalyze [%s%s] %3d%%  %,d lines  %,.0f lines/s ",
                "#".repeat(filled), " ".repeat(20 - filled), percent, lines, lines / seconds);
        out.flush();
    }

    /** Ends the line, so the report starts on a fresh one. */
    void finish() {
        if (drawn) {
            out.println();
        }
    }
}
