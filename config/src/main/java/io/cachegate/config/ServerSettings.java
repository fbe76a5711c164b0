package io.cachegate.config;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Listener settings for the proxy and admin ports, request limits and shutdown behaviour.
 *
 * @param ioThreads event loop threads; 0 means one per available core
 * @param passthrough the other {@code /v1} paths forwarded to the backend; empty: none
 */
public record ServerSettings(String host, int port, String adminHost, int adminPort, long maxBodyBytes,
                             int maxHeaderBytes, Optional<String> adminToken, Duration shutdownGrace,
                             int ioThreads, JsonLimits json, List<Passthrough> passthrough) {

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
        passthrough = List.copyOf(passthrough);
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
                ServerKeys.IO_THREADS.fallback(), JsonLimits.defaults(), List.of());
    }

    @Override
    public String toString() {
        // The admin token is a secret and must not end up in logs.
        return "ServerSettings[host=" + host + ", port=" + port + ", adminHost=" + adminHost + ", adminPort="
                + adminPort + ", maxBodyBytes=" + maxBodyBytes + ", maxHeaderBytes=" + maxHeaderBytes
                + ", adminToken=" + (adminToken.isPresent() ? "<redacted>" : "none") + ", shutdownGrace="
                + shutdownGrace + ", ioThreads=" + ioThreads + ", json=" + json + ", passthrough=" + passthrough + "]";
    }
}
