package io.cachegate.config;

/**
 * Whether a TLS listener asks clients for a certificate. YAML: {@code none}, {@code optional} (asked for; a
 * client without one is still served) or {@code require} (the handshake fails without a trusted one).
 */
public enum ClientAuth {
    NONE,
    OPTIONAL,
    REQUIRE
}
