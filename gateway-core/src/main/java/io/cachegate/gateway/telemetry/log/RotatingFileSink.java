package io.cachegate.gateway.telemetry.log;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Lines appended to {@code file}; a line that would take it past {@code maxBytes} first rotates it:
 * {@code file.<maxFiles>} is deleted, {@code file.<n>} becomes {@code file.<n+1>}, {@code file} becomes
 * {@code file.1}, and a new {@code file} is started. So at most {@code maxFiles} old files are kept besides the
 * current one. A line longer than {@code maxBytes} still goes whole into a file of its own.
 */
final class RotatingFileSink implements LineSink {

    private final Path file;
    private final long maxBytes;
    private final int maxFiles;
    private OutputStream out;
    private long size;

    RotatingFileSink(Path file, long maxBytes, int maxFiles) throws IOException {
        this.file = file;
        this.maxBytes = maxBytes;
        this.maxFiles = maxFiles;
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        open();
    }

    private void open() throws IOException {
        out = new BufferedOutputStream(Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND,
                StandardOpenOption.WRITE), 64 * 1024);
        size = Files.size(file);
    }

    @Override
    public void write(byte[] line) throws IOException {
        long length = line.length + 1L;
        if (size > 0 && size + length > maxBytes) {
            rotate();
        }
        out.write(line);
        out.write('\n');
        size += length;
    }

    private void rotate() throws IOException {
        out.close();
        Files.deleteIfExists(numbered(maxFiles));
        for (int n = maxFiles - 1; n >= 1; n--) {
            Path older = numbered(n);
            if (Files.exists(older)) {
                Files.move(older, numbered(n + 1), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        Files.move(file, numbered(1), StandardCopyOption.REPLACE_EXISTING);
        open();
    }

    private Path numbered(int n) {
        return file.resolveSibling(file.getFileName() + "." + n);
    }

    @Override
    public void flush() throws IOException {
        out.flush();
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
