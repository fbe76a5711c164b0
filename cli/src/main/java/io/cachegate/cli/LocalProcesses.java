package io.cachegate.cli;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The benchmarks' helpers for processes on this machine: a sub-command of this same jar in its own
 * JVM (so load generator, simulator and gateway do not share a heap or a GC), free ports, and
 * waiting for a listener. Each process logs to {@code <tmpdir>/cachegate-bench-<name>.log}.
 */
final class LocalProcesses {

    private LocalProcesses() {
    }

    static File logFile(String name) {
        return Path.of(System.getProperty("java.io.tmpdir"), "cachegate-bench-" + name + ".log").toFile();
    }

    /** Starts {@code cachegate <args>} in a new JVM with {@code jvmOptions} (whitespace-separated). */
    static Process cachegate(String name, String jvmOptions, List<String> extraJvmOptions, String... args)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        if (!jvmOptions.isBlank()) {
            command.addAll(List.of(jvmOptions.trim().split("\\s+")));
        }
        command.addAll(extraJvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(CachegateCli.class.getName());
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(logFile(name)).start();
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
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
