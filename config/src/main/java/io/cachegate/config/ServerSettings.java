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

    /** The settings used when the policy has no {@code server} section. */
    public static ServerSettings defaults() {
        return new ServerSettings("0.0.0.0", 8080, "127.0.0.1", 8081, 4L * 1024 * 1024, 16 * 1024,
                Optional.empty(), Duration.ofSeconds(30), 0, JsonLimits.defaults());
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
