package io.cachegate.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * The redis-server processes of one test topology (a cluster, a sentinel set), each on a free port with a
 * directory of its own under one temporary directory, and redis-cli to ask them things. Skips the test when
 * redis-server or redis-cli is not installed. {@link #close()} kills every process and removes the directory.
 */
final class RedisProcesses implements AutoCloseable {

    private final Path dir;
    private final Map<Integer, Process> running = new LinkedHashMap<>();
    private final String server;
    private final String cli;

    RedisProcesses(String name) {
        this.server = RedisTestServer.binary("redis-server");
        this.cli = RedisTestServer.binary("redis-cli");
        assumeTrue(server != null && cli != null,
                "redis-server and redis-cli are not installed (Debian: apt-get install redis-server redis-tools)");
        try {
            this.dir = Files.createTempDirectory("cachegate-" + name);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Starts redis-server on a free port with {@code args} (after the port's own settings) and waits for PING. */
    int start(List<String> args) {
        int port = RedisTestServer.freePort();
        Path home = dir.resolve(Integer.toString(port));
        List<String> command = new ArrayList<>();
        command.add(server);
        command.addAll(args);
        command.addAll(List.of("--bind", "127.0.0.1", "--port", Integer.toString(port), "--dir", home.toString(),
                "--save", "", "--appendonly", "no"));
        return launch(port, home, command);
    }

    /** Starts a sentinel on a free port from {@code config} lines (its own writable file) and waits for PING. */
    int startSentinel(List<String> config) {
        int port = RedisTestServer.freePort();
        Path home = dir.resolve(Integer.toString(port));
        try {
            Files.createDirectories(home);
            List<String> lines = new ArrayList<>(List.of("bind 127.0.0.1", "port " + port, "dir " + home));
            lines.addAll(config);
            Files.write(home.resolve("sentinel.conf"), lines, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return launch(port, home, List.of(server, home.resolve("sentinel.conf").toString(), "--sentinel"));
    }

    private int launch(int port, Path home, List<String> command) {
        try {
            Files.createDirectories(home);
            Process process = new ProcessBuilder(command).directory(home.toFile()).redirectErrorStream(true)
                    .redirectOutput(home.resolve("redis.log").toFile()).start();
            running.put(port, process);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        await("redis on port " + port + " answers PING", 10_000, () -> RedisTestServer.ping("127.0.0.1", port));
        return port;
    }

    /** Kills the process on {@code port} at once (SIGKILL: no goodbye to its peers) and waits until it is gone. */
    void kill(int port) {
        Process process = running.remove(port);
        if (process != null) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    boolean alive(int port) {
        Process process = running.get(port);
        return process != null && process.isAlive();
    }

    List<Integer> ports() {
        return List.copyOf(running.keySet());
    }

    /** redis-cli's output (raw, one value a line); an empty string when it failed. */
    String cli(List<String> args) {
        List<String> command = new ArrayList<>(List.of(cli, "-h", "127.0.0.1"));
        command.addAll(args);
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] out = process.getInputStream().readAllBytes();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return "";
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    String cli(int port, String... args) {
        List<String> all = new ArrayList<>(List.of("-p", Integer.toString(port), "--raw"));
        all.addAll(List.of(args));
        return cli(all);
    }

    /** Polls {@code condition} every 20 ms; fails naming {@code what} after {@code millis}. */
    static void await(String what, long millis, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("not within " + millis + " ms: " + what);
            }
            RedisTestServer.pause(20);
        }
    }

    @Override
    public void close() {
        for (Integer port : List.copyOf(running.keySet())) {
            kill(port);
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // A temporary directory left behind is harmless.
        }
    }
}
