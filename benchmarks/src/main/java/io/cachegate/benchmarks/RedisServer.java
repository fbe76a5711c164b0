package io.cachegate.benchmarks;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One redis-server child on a fixed port that a stress test may break: SIGKILL it, start it again on the same
 * port (the gateways' clients reconnect to the address they know), stall it ({@code DEBUG SLEEP}) or hold its
 * clients' writes ({@code CLIENT PAUSE}). Nothing is persisted, so a restarted server starts empty.
 */
public final class RedisServer implements AutoCloseable {

    private final int port;
    private final File log;
    private Process process;

    private RedisServer(int port, File log) {
        this.port = port;
        this.log = log;
    }

    /** Whether a {@code redis-server} binary is on the PATH (tests skip without one). */
    public static boolean installed() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (new File(dir, "redis-server").canExecute()) {
                return true;
            }
        }
        return false;
    }

    /** Starts a server on a free port, logging to {@code log}, and waits until it answers PING. */
    public static RedisServer start(File log) throws IOException, InterruptedException {
        RedisServer server = new RedisServer(LocalProcesses.freePort(), log);
        server.restart();
        return server;
    }

    public int port() {
        return port;
    }

    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** The server's process id, or -1 when it is not running. */
    public synchronized long pid() {
        return process != null && process.isAlive() ? process.pid() : -1;
    }

    public synchronized boolean running() {
        return process != null && process.isAlive();
    }

    /** Kills the server with SIGKILL (no shutdown, no goodbye to its clients) and waits until it is gone. */
    public synchronized void kill() {
        if (process != null) {
            process.destroyForcibly(); // SIGKILL on Unix
            try {
                process.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            process = null;
        }
    }

    /** Starts the server again on the same port (killing a running one first) and waits until it answers PING. */
    public synchronized void restart() throws IOException, InterruptedException {
        kill();
        // DEBUG SLEEP needs the debug commands; persistence off, so nothing outlives a kill.
        List<String> command = List.of("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--enable-debug-command", "yes");
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log)).start();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!ping(port)) {
            if (System.nanoTime() > deadline || !process.isAlive()) {
                throw new IllegalStateException("redis-server did not answer PING on port " + port + "; see " + log);
            }
            Thread.sleep(50);
        }
    }

    /**
     * Stalls the whole server for {@code stall} ({@code DEBUG SLEEP}): every client's commands wait, as on a
     * server swapping or forking. Sent on a connection of its own; the future completes when the server is back.
     */
    public CompletableFuture<String> stall(Duration stall) {
        String seconds = String.format(Locale.ROOT, "%.3f", stall.toNanos() / 1e9);
        return CompletableFuture.supplyAsync(() -> command("DEBUG", "SLEEP", seconds));
    }

    /**
     * Holds the clients' commands for {@code pause} ({@code CLIENT PAUSE}): with {@code writesOnly} only writes
     * (a client's reads queued behind its held write wait too), else every command. Returns at once.
     */
    public String pause(Duration pause, boolean writesOnly) {
        List<String> args = new ArrayList<>(List.of("CLIENT", "PAUSE", Long.toString(pause.toMillis())));
        if (writesOnly) {
            args.add("WRITE");
        }
        return command(args.toArray(String[]::new));
    }

    /** Sends one command on a fresh connection and returns the first line of the reply (e.g. {@code +OK}). */
    public String command(String... args) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            s.setSoTimeout(30_000);
            OutputStream out = s.getOutputStream();
            StringBuilder resp = new StringBuilder("*").append(args.length).append("\r\n");
            for (String a : args) {
                resp.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
            }
            out.write(resp.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            return readLine(s.getInputStream());
        } catch (IOException e) {
            return "-ERR " + e.getMessage();
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != -1 && c != '\n'; c = in.read()) {
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }

    /** Whether something on 127.0.0.1:{@code port} answers {@code PING} with {@code +PONG} within a second. */
    static boolean ping(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            s.setSoTimeout(1000);
            s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            return readLine(s.getInputStream()).startsWith("+PONG");
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() {
        kill();
    }
}
