package io.cachegate.benchmarks;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code bench fleet} asks Redis itself, over one plain RESP connection: command counts ({@code INFO
 * commandstats}) and the memory of sampled entries ({@code MEMORY USAGE}). A benchmark's probe, not a client: it
 * reads the few reply types these commands give.
 */
final class RedisProbe implements AutoCloseable {

    private static final Pattern CALLS = Pattern.compile("(?m)^cmdstat_([a-z|_-]+):calls=(\\d+)");

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RedisProbe(String uri) throws IOException {
        URI u = URI.create(uri);
        socket = new Socket();
        socket.connect(new InetSocketAddress(u.getHost(), u.getPort() < 0 ? 6379 : u.getPort()), 2000);
        socket.setSoTimeout(10_000);
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** Commands Redis has run since its start (or CONFIG RESETSTAT), every client's, without this probe's INFO. */
    long commandsRun() throws IOException {
        String info = (String) command("INFO", "commandstats");
        long total = 0;
        Matcher m = CALLS.matcher(info);
        while (m.find()) {
            if (!m.group(1).equals("info")) {
                total += Long.parseLong(m.group(2));
            }
        }
        return total;
    }

    /** The mean {@code MEMORY USAGE} of up to {@code sample} keys matching {@code pattern}, and how many were read. */
    long[] meanMemory(String pattern, int sample) throws IOException {
        List<String> keys = new ArrayList<>();
        String cursor = "0";
        do {
            List<?> reply = (List<?>) command("SCAN", cursor, "MATCH", pattern, "COUNT", "1000");
            cursor = (String) reply.get(0);
            for (Object key : (List<?>) reply.get(1)) {
                if (keys.size() < sample) {
                    keys.add((String) key);
                }
            }
        } while (!cursor.equals("0") && keys.size() < sample);
        long sum = 0;
        int read = 0;
        for (String key : keys) {
            Object bytes = command("MEMORY", "USAGE", key, "SAMPLES", "0");
            if (bytes instanceof Long n) {
                sum += n;
                read++;
            }
        }
        return new long[] {read == 0 ? 0 : sum / read, read};
    }

    Object command(String... args) throws IOException {
        StringBuilder request = new StringBuilder().append('*').append(args.length).append("\r\n");
        for (String a : args) {
            request.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
        }
        out.write(request.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
        return reply();
    }

    private Object reply() throws IOException {
        int type = in.read();
        String line = line();
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new IOException("redis: " + line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(n + 2);
                return new String(bytes, 0, n, StandardCharsets.UTF_8);
            }
            case '*': {
                int n = Integer.parseInt(line);
                List<Object> items = new ArrayList<>(Math.max(0, n));
                for (int i = 0; i < n; i++) {
                    items.add(reply());
                }
                return items;
            }
            default:
                throw new IOException("redis: unexpected reply type " + type);
        }
    }

    private String line() throws IOException {
        StringBuilder s = new StringBuilder();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new IOException("redis closed the connection");
            }
            s.append((char) c);
        }
        in.read(); // '\n'
        return s.toString();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
