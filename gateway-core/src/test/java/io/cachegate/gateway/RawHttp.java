package io.cachegate.gateway;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** Plain HTTP helpers for tests: java.net.http for well-formed calls, a raw socket for everything else. */
final class RawHttp {

    static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    /** A parsed response read off a raw socket. */
    record Response(int status, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private RawHttp() {
    }

    static HttpResponse<String> post(int port, String path, String json, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> get(int port, String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).GET();
        if (headers.length > 0) {
            b.headers(headers);
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static Socket connect(int port) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        socket.setSoTimeout(15_000);
        return socket;
    }

    /** Sends {@code raw} on a new connection and reads one response. */
    static Response exchange(int port, byte[] raw) throws IOException {
        try (Socket socket = connect(port)) {
            OutputStream out = socket.getOutputStream();
            out.write(raw);
            out.flush();
            return read(socket.getInputStream());
        }
    }

    static Response exchange(int port, String raw) throws IOException {
        return exchange(port, raw.getBytes(StandardCharsets.ISO_8859_1));
    }

    /** A POST with a Content-Length body, as raw bytes. */
    static byte[] rawPost(String path, byte[] body, String... extraHeaderLines) {
        StringBuilder head = new StringBuilder("POST " + path + " HTTP/1.1\r\nHost: localhost\r\n"
                + "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\n");
        for (String line : extraHeaderLines) {
            head.append(line).append("\r\n");
        }
        head.append("\r\n");
        byte[] h = head.toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] all = new byte[h.length + body.length];
        System.arraycopy(h, 0, all, 0, h.length);
        System.arraycopy(body, 0, all, h.length, body.length);
        return all;
    }

    /** Reads one response: head, then a body framed by Content-Length, chunked, or the end of the stream. */
    static Response read(InputStream in) throws IOException {
        String statusLine = line(in);
        if (statusLine == null) {
            throw new IOException("connection closed before a response");
        }
        int status = Integer.parseInt(statusLine.split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        String l;
        while ((l = line(in)) != null && !l.isEmpty()) {
            int colon = l.indexOf(':');
            headers.put(l.substring(0, colon).trim().toLowerCase(Locale.ROOT), l.substring(colon + 1).trim());
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        String length = headers.get("content-length");
        if (status < 200 || status == 204 || status == 304) {
            // no body
        } else if (length != null) {
            body.write(in.readNBytes(Integer.parseInt(length)));
        } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            while (true) {
                String size = line(in);
                int n = Integer.parseInt(size.split(";")[0].trim(), 16);
                if (n == 0) {
                    while ((l = line(in)) != null && !l.isEmpty()) {
                        // trailers
                    }
                    break;
                }
                body.write(in.readNBytes(n));
                line(in);
            }
        } else {
            body.write(in.readAllBytes());
        }
        return new Response(status, headers, body.toString(StandardCharsets.UTF_8));
    }

    static String line(InputStream in) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1) {
            if (b == '\n') {
                String s = buf.toString(StandardCharsets.ISO_8859_1);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            buf.write(b);
        }
        return buf.size() == 0 ? null : buf.toString(StandardCharsets.ISO_8859_1);
    }

    /** Reads lines until {@code count} SSE data events have come or the stream ends; how many came. */
    static int readEvents(InputStream in, int count) throws IOException {
        int events = 0;
        String line;
        while (events < count && (line = line(in)) != null) {
            if (line.startsWith("data: {")) {
                events++;
            }
        }
        return events;
    }
}
