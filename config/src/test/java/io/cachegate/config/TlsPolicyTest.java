package io.cachegate.config;

import static io.cachegate.config.TestPolicies.BACKEND;
import static io.cachegate.config.TestPolicies.parse;
import static io.cachegate.config.TestPolicies.problem;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code server.tls}, {@code server.admin_tls} and {@code tenants[].client_certificates}, as a user writes them. */
class TlsPolicyTest {

    private static final String FINGERPRINT = "3F:A2:" + "00:".repeat(29) + "9C";

    @TempDir
    Path dir;
    private String cert;
    private String key;
    private String ca;

    @BeforeEach
    void files() throws IOException {
        // Only readability is checked here; whether the PEM is a usable pair is the gateway's check (TlsContexts).
        cert = Files.writeString(dir.resolve("tls.crt"), "pem").toString();
        key = Files.writeString(dir.resolve("tls.key"), "pem").toString();
        ca = Files.writeString(dir.resolve("ca.crt"), "pem").toString();
    }

    @Test
    void tls_isOff_byDefault_andWithASectionOfComments() throws Exception {
        assertThat(parse(BACKEND).server().tls()).isEmpty();
        assertThat(parse("server:\n  tls:\n    client_auth: none\n" + BACKEND).server().tls()).isEmpty();
    }

    @Test
    void tls_withCertificateAndKey_isOn_forEachListener() throws Exception {
        Policy policy = parse("""
                server:
                  tls: {certificate: "%s", key: "%s", client_ca: "%s", client_auth: require}
                  admin_tls: {certificate: "%s", key: "%s"}
                """.formatted(cert, key, ca, cert, key) + BACKEND);

        assertThat(policy.server().tls()).contains(new TlsSettings(cert, key, Optional.of(ca), ClientAuth.REQUIRE));
        assertThat(policy.server().adminTls()).contains(new TlsSettings(cert, key));
    }

    @Test
    void tls_problems_nameTheKey() {
        assertThat(problem("server:\n  tls: {certificate: \"%s\"}\n".formatted(cert) + BACKEND))
                .isEqualTo("policy.yaml:2: server.tls.key: is required: TLS needs both certificate and key");
        assertThat(problem("server:\n  tls: {certificate: \"%s\", key: \"%s\"}\n".formatted(cert, dir.resolve("no"))
                + BACKEND)).isEqualTo("policy.yaml:2: server.tls.key: \"" + dir.resolve("no")
                + "\" is not a readable file");
        assertThat(problem("server:\n  tls: {certificate: \"%s\", key: \"%s\", client_auth: optional}\n"
                .formatted(cert, key) + BACKEND)).isEqualTo("policy.yaml:2: server.tls.client_auth: client_auth: "
                + "optional needs client_ca, the CA that client certificates must chain to");
        assertThat(problem("server:\n  admin_tls: {client_auth: require}\n" + BACKEND)).isEqualTo(
                "policy.yaml:2: server.admin_tls.certificate: is required for client certificates (with key)");
    }

    @Test
    void clientCertificates_areNormalisedFingerprints_andAuthenticate() throws Exception {
        Policy policy = parse("""
                server:
                  tls: {certificate: "%s", key: "%s", client_ca: "%s", client_auth: optional}
                """.formatted(cert, key, ca) + BACKEND + """
                tenants:
                  - {id: acme, api_keys: [acme-key], client_certificates: ["%s"]}
                  - {id: robots, client_certificates: ["%s"]}
                """.formatted(FINGERPRINT, "ab".repeat(32)));
        String hex = FINGERPRINT.replace(":", "").toLowerCase();

        assertThat(policy.tenants().get(0).clientCertificates()).containsExactly(hex);
        assertThat(policy.tenantForCertificate(hex)).map(Tenant::id).contains("acme");
        assertThat(policy.tenantForCertificate("ab".repeat(32))).map(Tenant::id).contains("robots");
        assertThat(policy.tenantForCertificate("cd".repeat(32))).isEmpty();
        assertThat(policy.tenantForCertificate(null)).isEmpty();
    }

    @Test
    void clientCertificates_problems() {
        String tls = "server:\n  tls: {certificate: \"%s\", key: \"%s\", client_ca: \"%s\", client_auth: require}\n"
                .formatted(cert, key, ca);
        assertThat(problem(tls + BACKEND + "tenants:\n  - {id: acme, client_certificates: [\"3F:A2\"]}\n"))
                .startsWith("policy.yaml:7: tenants[0].client_certificates[0]: \"3F:A2\" is not a SHA-256 fingerprint");
        assertThat(problem(tls + BACKEND + """
                tenants:
                  - {id: acme, client_certificates: ["%s"]}
                  - {id: globex, client_certificates: ["%s"]}
                """.formatted(FINGERPRINT, FINGERPRINT.toLowerCase()))).isEqualTo(
                "policy.yaml:8: tenants[1].client_certificates[0]: this client certificate is already used by tenant acme");
        assertThat(problem(BACKEND + "tenants:\n  - {id: acme, client_certificates: [\"%s\"]}\n"
                .formatted(FINGERPRINT))).isEqualTo("policy.yaml:5: tenants[0].client_certificates: needs server.tls "
                + "with client_auth: optional or require, else no client certificate is asked for");
    }
}
