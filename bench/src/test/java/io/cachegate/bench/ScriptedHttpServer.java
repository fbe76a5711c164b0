package io.cachegate.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;

/**
 * A deliberately misbehaving HTTP/1.1 server for tests: answers every request with the same raw
 * bytes and optionally closes the connection after each answer. Blocking sockets, one thread per
 * connection: this is test scaffolding, not a model of anything.
 */
final class ScriptedHttpServer implements AutoCloseable {

    private final ServerSocket server;
    private final boolean tls;
    private final byte[] answer;
    private final boolean closeAfterAnswer;
    private final AtomicInteger requests = new AtomicInteger();
    private final Thread acceptor;

    ScriptedHttpServer(String rawAnswer, boolean closeAfterAnswer) throws IOException {
        this(rawAnswer, closeAfterAnswer, null);
    }

    /** With {@code tls}, the server speaks HTTPS (the JDK's blocking TLS sockets). */
    ScriptedHttpServer(String rawAnswer, boolean closeAfterAnswer, SSLContext tls) throws IOException {
        this.tls = tls != null;
        this.server = tls == null ? new ServerSocket(0, 50, InetAddress.getLoopbackAddress())
                : tls.getServerSocketFactory().createServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.answer = rawAnswer.getBytes(StandardCharsets.UTF_8);
        this.closeAfterAnswer = closeAfterAnswer;
        this.acceptor = new Thread(this::accept, "scripted-http-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    URI baseUrl() {
        return URI.create((tls ? "https" : "http") + "://127.0.0.1:" + server.getLocalPort());
    }

    int requests() {
        return requests.get();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                Thread handler = new Thread(() -> serve(socket), "scripted-http-conn");
                handler.setDaemon(true);
                handler.start();
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void serve(Socket socket) {
        try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream()) {
            while (readRequest(in)) {
                requests.incrementAndGet();
                out.write(answer);
                out.flush();
                if (closeAfterAnswer) {
                    return;
                }
            }
        } catch (IOException gone) {
            // the client closed; nothing to do
        }
    }

    /** Reads one request (headers and a Content-Length body); false at end of stream. */
    private static boolean readRequest(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                return false;
            }
            head.write(b);
            matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        int length = 0;
        for (String line : head.toString(StandardCharsets.ISO_8859_1).split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring("content-length:".length()).trim());
            }
        }
        return in.readNBytes(length).length == length;
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
