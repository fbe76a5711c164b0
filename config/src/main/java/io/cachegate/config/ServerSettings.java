package io.cachegate.config;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Listener settings for the proxy and admin ports, request limits and shutdown behaviour.
 *
 * @param ioThreads event loop threads; 0 means one per available core
 */
public record ServerSettings(String host, int port, String adminHost, int adminPort, long maxBodyBytes,
                             int maxHeaderBytes, Optional<String> adminToken, Duration shutdownGrace,
                             int ioThreads, JsonLimits json) {

    public ServerSettings {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(adminHost, "adminHost");
        Objects.requireNonNull(adminToken, "adminToken");
        Objects.requireNonNull(shutdownGrace, "shutdownGrace");
        Objects.requireNonNull(json, "json");
    }

    /** Every key at its default (see {@code ServerKeys}): what a policy without a {@code server} section gets. */
    public static ServerSettings defaults() {
        return new ServerSettings(ServerKeys.HOST.fallback(), ServerKeys.PORT.fallback(),
                ServerKeys.ADMIN_HOST.fallback(), ServerKeys.ADMIN_PORT.fallback(),
                ServerKeys.MAX_BODY_BYTES.fallback(), ServerKeys.MAX_HEADER_BYTES.fallback(),
                ServerKeys.ADMIN_TOKEN.fallback(), ServerKeys.SHUTDOWN_GRACE.fallback(),
                ServerKeys.IO_THREADS.fallback(), JsonLimits.defaults());
    }

    @Override
    public String toString() {
        // The admin token is a secret and must not end up in logs.
        return "ServerSettings[host=" + host + ", port=" + port + ", adminHost=" + adminHost + ", adminPort="
                + adminPort + ", maxBodyBytes=" + maxBodyBytes + ", maxHeaderBytes=" + maxHeaderBytes
                + ", adminToken=" + (adminToken.isPresent() ? "<redacted>" : "none") + ", shutdownGrace="
                + shutdownGrace + ", ioThreads=" + ioThreads + ", json=" + json + "]";
    }
}
