package io.cachegate.benchmarks;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The benchmarks' helpers for processes on this machine: log files ({@code <tmpdir>/cachegate-bench-<name>.log}),
 * free ports (anywhere, or in a range of {@value #PORTS_PROPERTY}), and waiting for a listener.
 */
final class LocalProcesses {

    /** The system property that confines the children's ports to a range, e.g. {@code 19300-19499}. */
    static final String PORTS_PROPERTY = "cachegate.bench.ports";

    /** Where the next search in the range starts. */
    private static int cursor;

    private LocalProcesses() {
    }

    static File logFile(String name) {
        return Path.of(System.getProperty("java.io.tmpdir"), "cachegate-bench-" + name + ".log").toFile();
    }

    /**
     * A free port: any the system gives, or with {@value #PORTS_PROPERTY}{@code =LOW-HIGH} (a shared machine where each
     * user has a range) the next free one of that range, taken in turn so a port just handed to a child that has not
     * bound it yet is not handed out again at once.
     */
    static int freePort() throws IOException {
        return freePorts(1);
    }

    /** A port p with p .. p + count - 1 free (the simulator binds its replicas there), in the range when one is set. */
    static synchronized int freePorts(int count) throws IOException {
        String range = System.getProperty(PORTS_PROPERTY);
        if (range == null) {
            for (int attempt = 0; attempt < 50; attempt++) {
                int base;
                try (ServerSocket socket = new ServerSocket(0)) {
                    base = socket.getLocalPort();
                }
                if (base + count <= 65536 && free(base + 1, count - 1)) {
                    return base;
                }
            }
            throw new IllegalStateException("found no " + count + " consecutive free ports");
        }
        String[] bounds = range.split("-", 2);
        int low = Integer.parseInt(bounds[0].trim());
        int high = Integer.parseInt(bounds[bounds.length - 1].trim());
        int size = high - low + 1;
        for (int tried = 0; tried < size; tried++) {
            int base = low + (cursor++ % size);
            if (base + count - 1 <= high && free(base, count)) {
                cursor += count - 1;
                return base;
            }
        }
        throw new IllegalStateException("found no " + count + " consecutive free ports in " + PORTS_PROPERTY + "="
                + range);
    }

    private static boolean free(int from, int count) {
        for (int port = from; port < from + count; port++) {
            try (ServerSocket s = new ServerSocket(port)) {
                if (s.getLocalPort() != port) {
                    return false;
                }
            } catch (IOException taken) {
                return false;
            }
        }
        return true;
    }

    /** Waits up to 30 s until something accepts connections on {@code port}. */
    static void awaitPort(int port) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return;
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        throw new IllegalStateException("nothing listens on port " + port + " after 30s; see the logs "
                + logFile("*"));
    }
}
