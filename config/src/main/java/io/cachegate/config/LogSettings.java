package io.cachegate.config;

import java.util.Optional;

/**
 * The {@code log} section: the access and audit log, and the sampled-request log for {@code cachegate analyze}.
 *
 * @param file the log file when {@code access} is {@link LogSink#FILE}
 * @param maxFileSize bytes after which a file is rotated
 * @param maxFiles rotated files kept besides the current one
 * @param queueLines lines waiting for the writer at most; more are dropped and counted
 * @param includeText whether lines carry the request body and the answer text (redacted); never the API key
 * @param sampleRate the share of parsed requests written to {@code sampleFile}; 0 writes none
 */
public record LogSettings(LogSink access, Optional<String> file, long maxFileSize, int maxFiles, int queueLines,
                          boolean includeText, double sampleRate, Optional<String> sampleFile) {

    public static LogSettings defaults() {
        return new LogSettings(TelemetryKeys.ACCESS.fallback(), Optional.empty(), TelemetryKeys.MAX_FILE_SIZE.fallback(),
                TelemetryKeys.MAX_FILES.fallback(), TelemetryKeys.QUEUE_LINES.fallback(),
                TelemetryKeys.INCLUDE_TEXT.fallback(), TelemetryKeys.SAMPLE_RATE.fallback(), Optional.empty());
    }
}
