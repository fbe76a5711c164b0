package io.cachegate.benchmarks;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An OTLP/HTTP endpoint that accepts trace exports and keeps only their count and size: what a traced gateway
 * exports to in a benchmark, so the export's cost (serialising, sending) is paid as against a real collector.
 */
final class OtlpSink implements AutoCloseable {

    private final HttpServer server;
    private final AtomicLong exports = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();

    private OtlpSink(HttpServer server) {
        this.server = server;
    }

    static OtlpSink start() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        OtlpSink sink = new OtlpSink(server);
        server.createContext("/v1/traces", exchange -> {
            try (InputStream body = exchange.getRequestBody()) {
                sink.bytes.addAndGet(body.transferTo(OutputStream.nullOutputStream()));
            }
            sink.exports.incrementAndGet();
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, -1); // an empty ExportTraceServiceResponse: all accepted
            exchange.close();
        });
        server.setExecutor(Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "otlp-sink");
            t.setDaemon(true);
            return t;
        }));
        server.start();
        return sink;
    }

    /** The base URL a gateway's {@code telemetry.otlp.endpoint} names. */
    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    long exports() {
        return exports.get();
    }

    long bytes() {
        return bytes.get();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
