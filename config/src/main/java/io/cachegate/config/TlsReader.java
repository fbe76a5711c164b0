package io.cachegate.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * Reads a {@code tls} section ({@code server.tls}, {@code server.admin_tls}; keys in {@link ServerKeys}).
 * Without {@code certificate} and {@code key} the listener is plain HTTP. The files must be readable now; whether
 * they hold a matching pair is the gateway's to find out when it builds the TLS context.
 */
final class TlsReader {

    private TlsReader() {
    }

    static Optional<TlsSettings> read(Fields server, Section section) {
        Fields tls = server.section(section);
        if (tls == null) {
            return Optional.empty();
        }
        Optional<String> certificate = readable(tls, ServerKeys.TLS_CERTIFICATE.name());
        Optional<String> key = readable(tls, ServerKeys.TLS_KEY.name());
        Optional<String> clientCa = readable(tls, ServerKeys.TLS_CLIENT_CA.name());
        ClientAuth clientAuth = tls.get(ServerKeys.TLS_CLIENT_AUTH);
        boolean hasCertificate = tls.has(ServerKeys.TLS_CERTIFICATE.name());
        boolean hasKey = tls.has(ServerKeys.TLS_KEY.name());
        if (!hasCertificate && !hasKey) {
            if (clientCa.isPresent() || clientAuth != ClientAuth.NONE) {
                tls.problem(ServerKeys.TLS_CERTIFICATE.name(), "is required for client certificates (with key)");
            }
            return Optional.empty(); // a section of comments: plain HTTP
        }
        if (hasCertificate != hasKey) {
            String missing = hasCertificate ? ServerKeys.TLS_KEY.name() : ServerKeys.TLS_CERTIFICATE.name();
            tls.problem(missing, "is required: TLS needs both certificate and key");
            return Optional.empty();
        }
        if (clientAuth != ClientAuth.NONE && clientCa.isEmpty() && !tls.has(ServerKeys.TLS_CLIENT_CA.name())) {
            tls.problem(ServerKeys.TLS_CLIENT_AUTH.name(), "client_auth: " + clientAuth.name().toLowerCase(Locale.ROOT)
                    + " needs client_ca, the CA that client certificates must chain to");
        }
        if (clientAuth == ClientAuth.NONE && clientCa.isPresent()) {
            tls.problem(ServerKeys.TLS_CLIENT_CA.name(), "is unused with client_auth: none (set optional or require)");
        }
        if (certificate.isEmpty() || key.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new TlsSettings(certificate.get(), key.get(), clientCa, clientAuth));
    }

    private static Optional<String> readable(Fields tls, String name) {
        Optional<String> path = tls.optional(name);
        if (path.isPresent() && !Files.isReadable(Path.of(path.get()))) {
            tls.problem(name, Durations.quote(path.get()) + " is not a readable file");
            return Optional.empty();
        }
        return path;
    }
}
