package io.cachegate.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds or starts the redis-server of the integration tests: {@code CACHEGATE_TEST_REDIS_URI}
 * (set by .ci/run), else 127.0.0.1:6379 when it answers PING, else a redis-server of our own on a
 * free port. {@link #startPrivate()} starts one that a test may stop, restart and FLUSHDB; the
 * shared one is never flushed (other things may use it): tests there use random tenants.
 */
public final class RedisTestServer implements AutoCloseable {

    private static String shared;

    private final int port;
    private final Path dir;
    private final List<String> options;
    private Process process;

    private RedisTestServer(int port, Path dir, List<String> options) {
        this.port = port;
        this.dir = dir;
        this.options = options;
    }

    /** The URI of a running Redis, or the test is skipped when there is none and none can be started. */
    public static synchronized String sharedUri() {
        if (shared == null) {
            String env = System.getenv("CACHEGATE_TEST_REDIS_URI");
            if (env != null && !env.isBlank()) {
                shared = env.strip();
            } else if (ping("127.0.0.1", 6379)) {
                shared = "redis://127.0.0.1:6379";
            } else {
                RedisTestServer own = startPrivate();
                Runtime.getRuntime().addShutdownHook(new Thread(own::close));
                shared = own.uri();
            }
        }
        return shared;
    }

    /** A redis-server of this test's own on a free port (skips the test when the binary is missing). */
    public static RedisTestServer startPrivate() {
        return startPrivate(new String[0]);
    }

    /**
     * As {@link #startPrivate()}, with more redis-server options on its command line (on every start), e.g.
     * {@code "--enable-debug-command", "local"} for a test that stalls it with {@code DEBUG SLEEP}.
     */
    public static RedisTestServer startPrivate(String... options) {
        assumeTrue(binary() != null, "redis-server not installed");
        try {
            RedisTestServer server = new RedisTestServer(freePort(), Files.createTempDirectory("cachegate-redis"),
                    List.of(options));
            server.start();
            return server;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    /** Starts (or restarts, on the same port) the server and waits until it answers PING. */
    public void start() {
        try {
            List<String> command = new ArrayList<>(List.of(binary(), "--bind", "127.0.0.1", "--port",
                    Integer.toString(port), "--save", "", "--appendonly", "no", "--dir", dir.toString()));
            command.addAll(options);
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("redis.log").toFile())
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!ping("127.0.0.1", port)) {
            if (System.nanoTime() > deadline || !process.isAlive()) {
                throw new IllegalStateException("redis-server did not start on port " + port);
            }
            pause(20);
        }
    }

    /** Kills the server and waits until its port refuses connections. */
    public void stop() {
        if (process != null) {
            process.destroyForcibly();
            try {
                process.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            process = null;
        }
    }

    @Override
    public void close() {
        stop();
    }

    /** One command over a fresh socket; returns the first reply line (e.g. {@code +OK}, {@code :3}). */
    public static String command(String uri, String... args) {
        URI u = URI.create(uri);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(u.getHost(), u.getPort()), 1000);
            socket.setSoTimeout(2000);
            OutputStream out = socket.getOutputStream();
            ByteArrayOutputStream req = new ByteArrayOutputStream();
            req.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (String arg : args) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                req.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                req.write(bytes);
                req.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            out.write(req.toByteArray());
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = in.read()) >= 0 && c != '\r') {
                line.append((char) c);
            }
            return line.toString();
        } catch (IOException e) {
            throw new IllegalStateException("redis command " + List.of(args) + " failed: " + e.getMessage(), e);
        }
    }

    public static boolean ping(String host, int port) {
        try {
            return "+PONG".equals(command("redis://" + host + ":" + port, "PING"));
        } catch (IllegalStateException e) {
            return false;
        }
    }

    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String binary() {
        return binary("redis-server");
    }

    /** The path of the executable {@code name} on the PATH, or null. */
    static String binary(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            File f = new File(dir, name);
            if (f.canExecute()) {
                return f.getPath();
            }
        }
        return null;
    }

    public static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
