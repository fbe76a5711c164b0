package io.cachegate.config;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Listener settings for the proxy and admin ports, request limits and shutdown behaviour.
 *
 * @param ioThreads event loop threads; 0 means one per available core
 * @param passthrough the other {@code /v1} paths forwarded to the backend; empty: none
 * @param connections read timeouts and connection caps of the proxy listener
 * @param tls TLS on the proxy listener; empty: plain HTTP
 * @param adminTls TLS on the admin listener; empty: plain HTTP
 */
public record ServerSettings(String host, int port, String adminHost, int adminPort, long maxBodyBytes,
                             int maxHeaderBytes, Optional<String> adminToken, Duration shutdownGrace,
                             int ioThreads, JsonLimits json, List<Passthrough> passthrough,
                             Connections connections, Optional<TlsSettings> tls,
                             Optional<TlsSettings> adminTls) {

    /**
     * What the proxy listener allows one connection and all of them: applied to each new connection.
     *
     * @param headerTimeout a request head must be whole this long after its first byte
     * @param bodyTimeout a request body must be whole this long after its head
     * @param idleTimeout a connection with no request in progress is closed after this
     * @param maxBufferedBodyBytes bytes all partial request bodies may hold at once; empty: worked out from the
     *     JVM's max heap
     * @param maxBufferedBodyBytesPerTenant the same for one tenant's; empty: a share of the first
     */
    public record Connections(Duration headerTimeout, Duration bodyTimeout, Duration idleTimeout,
                              int maxConnections, int maxConnectionsPerAddress, OptionalLong maxBufferedBodyBytes,
                              OptionalLong maxBufferedBodyBytesPerTenant) {

        public Connections {
            Objects.requireNonNull(headerTimeout, "headerTimeout");
            Objects.requireNonNull(bodyTimeout, "bodyTimeout");
            Objects.requireNonNull(idleTimeout, "idleTimeout");
            Objects.requireNonNull(maxBufferedBodyBytes, "maxBufferedBodyBytes");
            Objects.requireNonNull(maxBufferedBodyBytesPerTenant, "maxBufferedBodyBytesPerTenant");
        }

        /** With the buffered-body budgets worked out by the gateway. */
        public Connections(Duration headerTimeout, Duration bodyTimeout, Duration idleTimeout, int maxConnections,
                           int maxConnectionsPerAddress) {
            this(headerTimeout, bodyTimeout, idleTimeout, maxConnections, maxConnectionsPerAddress,
                    OptionalLong.empty(), OptionalLong.empty());
        }

        /** Every key at its default (see {@code ServerKeys}). */
        public static Connections defaults() {
            return new Connections(ServerKeys.HEADER_TIMEOUT.fallback(), ServerKeys.BODY_TIMEOUT.fallback(),
                    ServerKeys.IDLE_TIMEOUT.fallback(), ServerKeys.MAX_CONNECTIONS.fallback(),
                    ServerKeys.MAX_CONNECTIONS_PER_ADDRESS.fallback());
        }
    }

    /**
     * One path forwarded as it is (unparsed, uncached) with the backend's own API key.
     *
     * @param methods upper-case HTTP method names
     */
    public record Passthrough(String path, Set<String> methods) {

        public Passthrough {
            Objects.requireNonNull(path, "path");
            methods = Set.copyOf(methods);
        }

        public boolean allows(String method) {
            return methods.contains(method.toUpperCase(Locale.ROOT));
        }
    }

    public ServerSettings {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(adminHost, "adminHost");
        Objects.requireNonNull(adminToken, "adminToken");
        Objects.requireNonNull(shutdownGrace, "shutdownGrace");
        Objects.requireNonNull(json, "json");
        Objects.requireNonNull(connections, "connections");
        passthrough = List.copyOf(passthrough);
        Objects.requireNonNull(tls, "tls");
        Objects.requireNonNull(adminTls, "adminTls");
    }

    /** Settings with both listeners on plain HTTP. */
    public ServerSettings(String host, int port, String adminHost, int adminPort, long maxBodyBytes,
                          int maxHeaderBytes, Optional<String> adminToken, Duration shutdownGrace,
                          int ioThreads, JsonLimits json, List<Passthrough> passthrough, Connections connections) {
        this(host, port, adminHost, adminPort, maxBodyBytes, maxHeaderBytes, adminToken, shutdownGrace, ioThreads,
                json, passthrough, connections, Optional.empty(), Optional.empty());
    }

    /** These settings with {@code tls} on the proxy listener and {@code adminTls} on the admin listener. */
    public ServerSettings withTls(Optional<TlsSettings> tls, Optional<TlsSettings> adminTls) {
        return new ServerSettings(host, port, adminHost, adminPort, maxBodyBytes, maxHeaderBytes, adminToken,
                shutdownGrace, ioThreads, json, passthrough, connections, tls, adminTls);
    }

    /** Settings with the default timeouts and connection caps. */
    public ServerSettings(String host, int port, String adminHost, int adminPort, long maxBodyBytes,
                          int maxHeaderBytes, Optional<String> adminToken, Duration shutdownGrace,
                          int ioThreads, JsonLimits json, List<Passthrough> passthrough) {
        this(host, port, adminHost, adminPort, maxBodyBytes, maxHeaderBytes, adminToken, shutdownGrace, ioThreads,
                json, passthrough, Connections.defaults());
    }

    /** Settings without passthrough paths. */
    public ServerSettings(String host, int port, String adminHost, int adminPort, long maxBodyBytes,
                          int maxHeaderBytes, Optional<String> adminToken, Duration shutdownGrace,
                          int ioThreads, JsonLimits json) {
        this(host, port, adminHost, adminPort, maxBodyBytes, maxHeaderBytes, adminToken, shutdownGrace, ioThreads,
                json, List.of());
    }

    /** The passthrough entry for {@code path}, if the policy forwards it. */
    public Optional<Passthrough> passthroughFor(String path) {
        for (Passthrough p : passthrough) {
            if (p.path().equals(path)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** Every key at its default (see {@code ServerKeys}): what a policy without a {@code server} section gets. */
    public static ServerSettings defaults() {
        return new ServerSettings(ServerKeys.HOST.fallback(), ServerKeys.PORT.fallback(),
                ServerKeys.ADMIN_HOST.fallback(), ServerKeys.ADMIN_PORT.fallback(),
                ServerKeys.MAX_BODY_BYTES.fallback(), ServerKeys.MAX_HEADER_BYTES.fallback(),
                ServerKeys.ADMIN_TOKEN.fallback(), ServerKeys.SHUTDOWN_GRACE.fallback(),
                ServerKeys.IO_THREADS.fallback(), JsonLimits.defaults(), List.of(), Connections.defaults());
    }

    @Override
    public String toString() {
        // The admin token is a secret and must not end up in logs.
        return "ServerSettings[host=" + host + ", port=" + port + ", adminHost=" + adminHost + ", adminPort="
                + adminPort + ", maxBodyBytes=" + maxBodyBytes + ", maxHeaderBytes=" + maxHeaderBytes
                + ", adminToken=" + (adminToken.isPresent() ? "<redacted>" : "none") + ", shutdownGrace="
                + shutdownGrace + ", ioThreads=" + ioThreads + ", json=" + json + ", passthrough=" + passthrough
                + ", connections=" + connections + ", tls=" + tls + ", adminTls=" + adminTls + "]";
    }
}
