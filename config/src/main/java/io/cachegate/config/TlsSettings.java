package io.cachegate.config;

import java.util.Objects;
import java.util.Optional;

/**
 * TLS on one listener: PEM files read (and re-read when they change) by the gateway. Paths are as written, so a
 * relative one is relative to the gateway's working directory, like every other path in the policy.
 *
 * @param certificate the server certificate chain, PEM
 * @param key its private key, PEM (PKCS#8, {@code BEGIN PRIVATE KEY})
 * @param clientCa the CA certificates client certificates must chain to; present when {@code clientAuth} asks
 */
public record TlsSettings(String certificate, String key, Optional<String> clientCa, ClientAuth clientAuth) {

    public TlsSettings {
        Objects.requireNonNull(certificate, "certificate");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(clientCa, "clientCa");
        Objects.requireNonNull(clientAuth, "clientAuth");
    }

    /** TLS without client certificates. */
    public TlsSettings(String certificate, String key) {
        this(certificate, key, Optional.empty(), ClientAuth.NONE);
    }
}
