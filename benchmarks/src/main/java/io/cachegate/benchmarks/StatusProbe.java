package io.cachegate.benchmarks;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A small open-loop sender that, unlike the load generator, keeps the latency of every answer by its
 * status: the admission benchmark needs how fast the 429s come back, which the generator does not record.
 * Requests are due at a fixed rate; each goes out from a thread of its own on an idle keep-alive connection
 * (a new one, connected before the clock starts, when none is idle), as an OpenAI client's connection pool
 * sends them, and its latency runs from writing the request to reading the last byte of the answer, so
 * neither pacing nor connecting is counted. A 429 that closes the connection is recorded as the failure
 * {@code closed_after_429} as well: a client turned away must keep its connection. Meant for tens of
 * requests a second.
 */
final class StatusProbe {

    /** One recorded phase: latencies (microseconds) by status, and failures without an answer by kind. */
    record Result(Map<Integer, long[]> micros, Map<String, Long> failures) {

        long count(int status) {
            long[] v = micros.get(status);
            return v == null ? 0 : v.length;
        }

        /** Latencies of every answer with a status in [from, to]. */
        long[] between(int from, int to) {
            return micros.entrySet().stream().filter(e -> e.getKey() >= from && e.getKey() <= to)
                    .flatMapToLong(e -> Arrays.stream(e.getValue())).sorted().toArray();
        }
    }

    /** Nearest-rank percentiles of a set of latencies, in milliseconds. */
    record Percentiles(long count, double p50Ms, double p99Ms, double maxMs) {

        static final Percentiles EMPTY = new Percentiles(0, Double.NaN, Double.NaN, Double.NaN);

        static Percentiles of(long[] micros) {
            if (micros.length == 0) {
                return EMPTY;
            }
            long[] v = micros.clone();
            Arrays.sort(v);
            return new Percentiles(v.length, rank(v, 0.50) / 1000.0, rank(v, 0.99) / 1000.0, v[v.length - 1] / 1000.0);
        }

        /** The smallest value with at least {@code p} of the values at or below it. */
        static long rank(long[] sorted, double p) {
            int index = (int) Math.ceil(p * sorted.length) - 1;
            return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
        }
    }

    private record Sample(int status, long micros, boolean keptAlive) {
    }

    private StatusProbe() {
    }

    /**
     * Sends {@code bodies} round-robin as {@code POST path} to {@code target} at {@code rate} per second for
     * {@code warmup} plus {@code duration}, records the answers due after the warmup, and waits up to
     * {@code timeout} for the last.
     */
    static Result run(URI target, String path, List<byte[]> bodies, Map<String, String> headers, double rate,
                      Duration warmup, Duration duration, Duration timeout) throws InterruptedException {
        long period = (long) (1e9 / rate);
        long start = System.nanoTime();
        long recordFrom = start + warmup.toNanos();
        long end = recordFrom + duration.toNanos();
        ConcurrentLinkedQueue<Sample> samples = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        InetSocketAddress address = new InetSocketAddress(target.getHost(), target.getPort());
        ConcurrentLinkedQueue<Socket> idle = new ConcurrentLinkedQueue<>();
        ExecutorService threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "status-probe");
            t.setDaemon(true);
            return t;
        });
        try {
            for (long i = 0; ; i++) {
                long due = start + i * period;
                if (due - end >= 0) {
                    break;
                }
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                byte[] request = encode(target, path, bodies.get((int) (i % bodies.size())), headers);
                boolean recorded = due - recordFrom >= 0;
                threads.execute(() -> {
                    try {
                        Sample s = exchange(address, request, timeout, idle);
                        if (recorded) {
                            samples.add(s);
                            if (s.status() == 429 && !s.keptAlive()) {
                                failures.add("closed_after_429");
                            }
                        }
                    } catch (IOException e) {
                        if (recorded) {
                            failures.add(kind(e));
                        }
                    }
                });
            }
        } finally {
            threads.shutdown();
            threads.awaitTermination(timeout.toNanos() + TimeUnit.SECONDS.toNanos(2), TimeUnit.NANOSECONDS);
            threads.shutdownNow();
            for (Socket socket; (socket = idle.poll()) != null; ) {
                closeQuietly(socket);
            }
        }
        Map<Integer, List<Long>> byStatus = new TreeMap<>();
        for (Sample s : samples) {
            byStatus.computeIfAbsent(s.status(), k -> new ArrayList<>()).add(s.micros());
        }
        Map<Integer, long[]> micros = new TreeMap<>();
        byStatus.forEach((k, v) -> micros.put(k, v.stream().mapToLong(Long::longValue).toArray()));
        Map<String, Long> failed = new TreeMap<>();
        for (String f : failures) {
            failed.merge(f, 1L, Long::sum);
        }
        return new Result(micros, failed);
    }

    static byte[] encode(URI target, String path, byte[] body, Map<String, String> headers) {
        StringBuilder head = new StringBuilder(256).append("POST ").append(path).append(" HTTP/1.1\r\n")
                .append("Host: ").append(target.getHost()).append(':').append(target.getPort()).append("\r\n")
                .append("Content-Type: application/json\r\n")
                .append("Content-Length: ").append(body.length).append("\r\n");
        headers.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
        byte[] h = head.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII);
        byte[] out = Arrays.copyOf(h, h.length + body.length);
        System.arraycopy(body, 0, out, h.length, body.length);
        return out;
    }

    /**
     * One request on an idle connection of {@code idle}, or a new one; the connection goes back to {@code idle}
     * unless the answer closes it. An idle connection the server has closed meanwhile is replaced once.
     */
    private static Sample exchange(InetSocketAddress address, byte[] request, Duration timeout,
                                   ConcurrentLinkedQueue<Socket> idle) throws IOException {
        Socket socket = idle.poll();
        boolean reused = socket != null;
        if (socket == null) {
            socket = connect(address, timeout);
        }
        try {
            Sample s = exchange(socket, request, timeout);
            if (s.keptAlive()) {
                idle.add(socket);
            } else {
                closeQuietly(socket);
            }
            return s;
        } catch (StaleConnection e) {
            closeQuietly(socket);
            if (!reused) {
                throw e;
            }
            return exchange(address, request, timeout, idle);
        } catch (IOException | RuntimeException e) {
            closeQuietly(socket);
            throw e;
        }
    }

    private static Socket connect(InetSocketAddress address, Duration timeout) throws IOException {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(address, 5_000);
            socket.setSoTimeout((int) Math.max(1, timeout.toMillis()));
            return socket;
        } catch (IOException e) {
            closeQuietly(socket);
            throw e;
        }
    }

    /**
     * Writes the request and reads its answer: to its Content-Length, to the last chunk of a chunked body, or
     * to the end of the stream (then the connection is not kept).
     */
    private static Sample exchange(Socket socket, byte[] request, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        OutputStream out = socket.getOutputStream();
        InputStream in = socket.getInputStream();
        long sent = System.nanoTime();
        out.write(request);
        out.flush();
        ByteArrayOutputStream head = new ByteArrayOutputStream(512);
        byte[] buffer = new byte[8192];
        int headEnd = -1;
        while (headEnd < 0) {
            int n;
            try {
                n = in.read(buffer);
            } catch (java.net.SocketException reset) {
                if (head.size() == 0) {
                    throw new StaleConnection();
                }
                throw reset;
            }
            if (n < 0) {
                if (head.size() == 0) {
                    throw new StaleConnection();
                }
                throw new IOException("connection closed before the response head");
            }
            head.write(buffer, 0, n);
            headEnd = headEnd(head.toByteArray());
        }
        byte[] bytes = head.toByteArray();
        String text = new String(bytes, 0, headEnd, StandardCharsets.ISO_8859_1);
        int status = status(text);
        long length = contentLength(text);
        boolean chunked = header(text, "transfer-encoding").equalsIgnoreCase("chunked");
        boolean keepAlive = !header(text, "connection").equalsIgnoreCase("close") && (length >= 0 || chunked);
        // The body so far, after the CRLF that ends the head's last line: a chunked body ends with CRLF 0 CRLF CRLF.
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(bytes, headEnd + 2, bytes.length - headEnd - 2);
        long have = bytes.length - headEnd - 4;
        while (chunked ? !endsWithLastChunk(body.toByteArray()) : length < 0 || have < length) {
            if (System.nanoTime() - deadline > 0) {
                throw new SocketTimeoutException("answer incomplete after the timeout");
            }
            int n = in.read(buffer);
            if (n < 0) {
                if (length >= 0 || chunked) {
                    throw new IOException("connection closed before the end of the body");
                }
                break;
            }
            have += n;
            if (chunked) {
                body.write(buffer, 0, n);
            }
        }
        return new Sample(status, (System.nanoTime() - sent) / 1000, keepAlive);
    }

    /** Whether a chunked body (with the CRLF before it) has reached its last, empty chunk. */
    static boolean endsWithLastChunk(byte[] body) {
        byte[] last = "\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        return body.length >= last.length
                && Arrays.equals(body, body.length - last.length, body.length, last, 0, last.length);
    }

    /** The value of a response header, lower-cased names compared; empty when absent. */
    static String header(String head, String name) {
        for (String line : head.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
                return line.substring(colon + 1).trim();
            }
        }
        return "";
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing a connection we are done with
        }
    }

    /** An idle connection that the server closed before this request's answer began. */
    private static final class StaleConnection extends IOException {

        private static final long serialVersionUID = 1L;

        StaleConnection() {
            super("the idle connection was closed by the server");
        }
    }

    static int headEnd(byte[] b) {
        for (int i = 0; i + 3 < b.length; i++) {
            if (b[i] == '\r' && b[i + 1] == '\n' && b[i + 2] == '\r' && b[i + 3] == '\n') {
                return i;
            }
        }
        return -1;
    }

    static int status(String head) throws IOException {
        String[] parts = head.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
            throw new IOException("not an HTTP response: " + head.lines().findFirst().orElse(""));
        }
        return Integer.parseInt(parts[1].trim());
    }

    /** The Content-Length of a response head, -1 when it has none (chunked or read to the end). */
    static long contentLength(String head) {
        String value = header(head, "content-length");
        return value.isEmpty() ? -1 : Long.parseLong(value);
    }

    private static String kind(IOException e) {
        if (e instanceof SocketTimeoutException) {
            return "timeout";
        }
        if (e instanceof ConnectException) {
            return "connect";
        }
        return "io";
    }
}
