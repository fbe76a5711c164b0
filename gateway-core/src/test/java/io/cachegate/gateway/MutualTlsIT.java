package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cachegate.testkit.TestCertificates;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Client certificates mapped to tenants ({@code tenants[].client_certificates}): a listed certificate authenticates
 * as its tenant without a key, a key of another tenant with it is refused, an unlisted certificate falls back to the
 * key, and with {@code client_auth: require} a client without a certificate never completes the handshake.
 */
class MutualTlsIT {

    private static final String CHAT = "/v1/chat/completions";

    private static TestCertificates ca;
    private static TestCertificates.Issued acmeCert;
    private static TestCertificates.Issued unlisted;
    private static Gateway optional;
    private static Gateway require;

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator().prepare(MutualTlsIT::certificates)
            .env("ACME_FINGERPRINT", () -> acmeCert.fingerprint()).policy(policy("optional"));

    private static void certificates(Path dir) throws Exception {
        ca = TestCertificates.authority("cachegate test CA");
        ca.server().write(dir.resolve("tls.crt"), dir.resolve("tls.key"));
        ca.authority().writeCertificate(dir.resolve("ca.crt"));
        acmeCert = ca.client("acme-service");
        unlisted = ca.client("someone-else");
    }

    @BeforeAll
    static void start() throws Exception {
        optional = fixture.gateway();
        require = fixture.startAnother(policy("require"));
    }

    private static String policy(String clientAuth) {
        return """
                server:
                  tls: {certificate: "${DIR}/tls.crt", key: "${DIR}/tls.key", client_ca: "${DIR}/ca.crt", client_auth: %s}
                backends:
                  - {name: main, timeouts: {connect: 1s, first_byte: 5s, idle: 5s, total: 30s}}
                tenants:
                  - {id: acme, api_keys: [acme-key], client_certificates: ["${ACME_FINGERPRINT}"]}
                  - {id: globex, api_keys: [globex-key]}
                """.formatted(clientAuth);
    }

    @Test
    void listedCertificate_authenticatesAsItsTenant_withoutAKey() throws Exception {
        String body = CacheCalls.chat("mtls " + CacheCalls.nonce());

        HttpResponse<String> byCertificate = post(optional, acmeCert, body);
        HttpResponse<String> byAcmeKey = post(optional, null, body, "Authorization", "Bearer acme-key");
        HttpResponse<String> byGlobexKey = post(optional, null, body, "Authorization", "Bearer globex-key");

        assertThat(byCertificate.statusCode()).isEqualTo(200);
        assertThat(byAcmeKey.headers().firstValue("X-Cache")).as("acme's own entry").contains("HIT");
        assertThat(byGlobexKey.headers().firstValue("X-Cache")).as("another tenant's namespace").contains("MISS");
    }

    @Test
    void listedCertificate_withAnotherTenantsKey_is401() throws Exception {
        HttpResponse<String> both = post(optional, acmeCert, CacheCalls.chat("both"), "Authorization",
                "Bearer globex-key");
        HttpResponse<String> agreeing = post(optional, acmeCert, CacheCalls.chat("both"), "Authorization",
                "Bearer acme-key");

        assertThat(both.statusCode()).isEqualTo(401);
        assertThat(both.body()).contains("different tenants").doesNotContain("globex-key");
        assertThat(agreeing.statusCode()).isEqualTo(200);
    }

    @Test
    void unlistedCertificate_fallsBackToTheKey() throws Exception {
        assertThat(post(optional, unlisted, CacheCalls.chat("unlisted")).statusCode()).isEqualTo(401);
        assertThat(post(optional, unlisted, CacheCalls.chat("unlisted"), "Authorization", "Bearer globex-key")
                .statusCode()).isEqualTo(200);
        assertThat(post(optional, null, CacheCalls.chat("no certificate"), "Authorization", "Bearer acme-key")
                .statusCode()).isEqualTo(200);
    }

    @Test
    void require_withoutACertificate_failsTheHandshake() throws Exception {
        assertThatThrownBy(() -> post(require, null, CacheCalls.chat("none"), "Authorization", "Bearer acme-key"))
                .isInstanceOf(IOException.class);
        assertThat(post(require, acmeCert, CacheCalls.chat("required")).statusCode()).isEqualTo(200);
        assertThat(require.metrics().registry().get("cachegate.tls.handshakes.failed").tag("listener", "proxy")
                .counter().count()).isPositive();
    }

    @Test
    void certificateFromAnotherCa_neverAuthenticates() throws Exception {
        // The JDK client offers only a certificate from a CA the server names, so it goes without one here.
        TestCertificates.Issued stranger = TestCertificates.authority("another CA").client("acme-service");

        assertThat(post(optional, stranger, CacheCalls.chat("stranger")).statusCode()).isEqualTo(401);
        assertThatThrownBy(() -> post(require, stranger, CacheCalls.chat("stranger"))).isInstanceOf(IOException.class);
    }

    private static HttpResponse<String> post(Gateway gw, TestCertificates.Issued client, String body,
                                             String... headers) throws Exception {
        HttpClient http = HttpsClients.client(ca.authority(), client);
        return HttpsClients.post(http, gw.port(), CHAT, body, headers);
    }
}
