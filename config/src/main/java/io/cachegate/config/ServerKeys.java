package io.cachegate.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The keys of {@code server} and {@code server.json}; {@link ServerReader} reads them. They reload live but for what
 * the listeners bind once: addresses, ports, event-loop threads and whether they speak TLS (the certificate files
 * themselves are re-read by the TLS watcher).
 */
final class ServerKeys {

    static final Key<String> HOST = Key.string("host", "0.0.0.0", "proxy bind address").restart();
    static final Key<Integer> PORT = Key.integer("port", 8080, 0, 65_535, "proxy port; 0 = any free port")
            .restart();
    static final Key<String> ADMIN_HOST = Key.string("admin_host", "127.0.0.1",
            "admin API bind address; loopback keeps purge off the network").restart();
    static final Key<Integer> ADMIN_PORT = Key.integer("admin_port", 8081, 0, 65_535,
            "admin port, not the proxy's; 0 = any free port").restart();
    static final Key<Long> MAX_BODY_BYTES = Key.size("max_body_bytes", 4L << 20, 1, Long.MAX_VALUE,
            "larger request bodies get 413");
    static final Key<Integer> MAX_HEADER_BYTES = Key.intSize("max_header_bytes", 16 << 10, 1, Integer.MAX_VALUE,
            "request line plus headers");
    static final Key<Optional<String>> ADMIN_TOKEN = Key.optional("admin_token", "none",
            "if set, admin calls must send it as a Bearer token");
    static final Key<Duration> SHUTDOWN_GRACE = Key.duration("shutdown_grace", Duration.ofSeconds(30),
            "on stop, in-flight requests get this long to finish");
    static final Key<Integer> IO_THREADS = Key.integer("io_threads", 0, 0, 4096,
            "event loop threads; 0 = one per core").restart();
    static final Key<Duration> HEADER_TIMEOUT = Key.duration("header_timeout", Duration.ofSeconds(10),
            "a request head must arrive whole within this of its first byte, else 408 and close");
    static final Key<Duration> BODY_TIMEOUT = Key.duration("body_timeout", Duration.ofSeconds(60),
            "a request body must arrive whole within this of its head, else 408 and close");
    static final Key<Duration> IDLE_TIMEOUT = Key.duration("idle_timeout", Duration.ofSeconds(60),
            "a connection with no request in progress is closed after this; never cuts an answer");
    static final Key<Integer> MAX_CONNECTIONS = Key.integer("max_connections", 10_000, 1, 10_000_000,
            "open proxy connections; one more is closed at accept, before it is read");
    static final Key<Integer> MAX_CONNECTIONS_PER_ADDRESS = Key.integer("max_connections_per_address", 1000, 1,
            10_000_000, "open proxy connections from one client IP address; one more is closed at accept");
    static final Key<OptionalLong> MAX_BUFFERED_BODY_BYTES = Key.optionalSize("max_buffered_body_bytes",
            "auto: 1/8 of the JVM's max heap, at most 128MiB", 1, "request body bytes all partial bodies may hold "
                    + "at once; a body that would pass it is refused with 503 and its connection closed");
    static final Key<OptionalLong> MAX_BUFFERED_BODY_BYTES_PER_TENANT = Key.optionalSize(
            "max_buffered_body_bytes_per_tenant", "auto: 1/4 of max_buffered_body_bytes", 1, "the same, for the "
                    + "partial bodies of one tenant; past it 429 with Retry-After, and its connection closed");

    static final Key<Integer> MAX_DEPTH = Key.integer("max_depth", 64, 1, 10_000, "nesting depth");
    static final Key<Integer> MAX_STRING_LENGTH = Key.intSize("max_string_length", 4 << 20, 1, Integer.MAX_VALUE,
            "characters in one string");
    static final Key<Integer> MAX_NUMBER_LENGTH = Key.integer("max_number_length", 100, 1, 100_000,
            "digits in one number");

    static final Key<Optional<String>> PASSTHROUGH_PATH = Key.required("path",
            "an exact path under /v1/, e.g. /v1/rerank");
    static final Key<List<String>> PASSTHROUGH_METHODS = Key.strings("methods", List.of("POST"),
            "the HTTP methods forwarded on that path");

    static final Key<Optional<String>> TLS_CERTIFICATE = Key.optional("certificate", "none: plain HTTP",
            "PEM certificate chain; re-read when the file changes (new connections get the new one)");
    static final Key<Optional<String>> TLS_KEY = Key.optional("key", "none: plain HTTP",
            "its PEM private key, PKCS#8 (BEGIN PRIVATE KEY); re-read with the certificate");
    static final Key<Optional<String>> TLS_CLIENT_CA = Key.optional("client_ca", "none",
            "PEM CA certificates that client certificates must chain to; needed by optional and require");
    static final Key<ClientAuth> TLS_CLIENT_AUTH = Key.choice("client_auth", ClientAuth.NONE, false,
            "ask clients for a certificate: none, optional (no certificate: the API key decides), require "
                    + "(no trusted certificate: the handshake fails)");

    static final Section PASSTHROUGH = Section.list("passthrough", "other /v1 paths forwarded to the backend "
            + "unparsed and uncached, with its api_key; default none: any other /v1 path is 404",
            PASSTHROUGH_PATH, PASSTHROUGH_METHODS);
    static final Section JSON = Section.mapping("json", "request JSON limits, against hostile bodies",
            MAX_DEPTH, MAX_STRING_LENGTH, MAX_NUMBER_LENGTH);
    static final Section TLS = Section.mapping("tls", "TLS on the proxy listener; without certificate and key "
            + "it speaks plain HTTP", TLS_CERTIFICATE, TLS_KEY, TLS_CLIENT_CA, TLS_CLIENT_AUTH).restart();
    static final Section ADMIN_TLS = Section.mapping("admin_tls", "TLS on the admin listener, as tls",
            TLS_CERTIFICATE, TLS_KEY, TLS_CLIENT_CA, TLS_CLIENT_AUTH).restart();
    static final Section SECTION = Section.mapping("server", "the proxy and admin listeners, request limits",
            HOST, PORT, ADMIN_HOST, ADMIN_PORT, MAX_BODY_BYTES, MAX_HEADER_BYTES, ADMIN_TOKEN, SHUTDOWN_GRACE,
            IO_THREADS, HEADER_TIMEOUT, BODY_TIMEOUT, IDLE_TIMEOUT, MAX_CONNECTIONS, MAX_CONNECTIONS_PER_ADDRESS,
            MAX_BUFFERED_BODY_BYTES, MAX_BUFFERED_BODY_BYTES_PER_TENANT)
            .with(JSON, PASSTHROUGH, TLS, ADMIN_TLS).live();

    private ServerKeys() {
    }
}
