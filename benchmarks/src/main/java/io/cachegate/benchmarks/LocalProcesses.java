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
 * free ports, and waiting for a listener.
 */
final class LocalProcesses {

    private LocalProcesses() {
    }

    static File logFile(String name) {
        return Path.of(System.getProperty("java.io.tmpdir"), "cachegate-bench-" + name + ".log").toFile();
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** A port p with p .. p + count - 1 free (the simulator binds its replicas there). */
    static int freePorts(int count) throws IOException {
        for (int attempt = 0; attempt < 50; attempt++) {
            int base = freePort();
            boolean free = base + count <= 65535;
            for (int i = 1; free && i < count; i++) {
                try (ServerSocket s = new ServerSocket(base + i)) {
                    free = s.getLocalPort() == base + i;
                } catch (IOException taken) {
                    free = false;
                }
            }
            if (free) {
                return base;
            }
        }
        throw new IllegalStateException("found no " + count + " consecutive free ports");
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
