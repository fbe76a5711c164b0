package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.testkit.TestCertificates;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * HTTP/2 over TLS, chosen by ALPN {@code h2}: answers and hits as over HTTP/1.1, a client certificate read from the
 * connection for a request on one of its streams; a client offering only {@code http/1.1} keeps HTTP/1.1, and the
 * admin listener offers HTTP/1.1 only.
 */
class Http2TlsIT {

    private static TestCertificates ca;
    private static TestCertificates.Issued acmeCert;

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator().prepare(Http2TlsIT::certificates)
            .env("ACME_FINGERPRINT", () -> acmeCert.fingerprint()).policy("""
            server:
              tls: {certificate: "${DIR}/tls.crt", key: "${DIR}/tls.key", client_ca: "${DIR}/ca.crt", client_auth: optional}
              admin_tls: {certificate: "${DIR}/tls.crt", key: "${DIR}/tls.key"}
            backends:
              - {name: main, timeouts: {connect: 1s, first_byte: 5s, idle: 5s, total: 30s}}
            tenants:
              - {id: acme, api_keys: [acme-key], client_certificates: ["${ACME_FINGERPRINT}"]}
            """);

    private static void certificates(Path dir) throws Exception {
        ca = TestCertificates.authority("cachegate test CA");
        ca.server().write(dir.resolve("tls.crt"), dir.resolve("tls.key"));
        ca.authority().writeCertificate(dir.resolve("ca.crt"));
        acmeCert = ca.client("acme-service");
    }

    private static HttpClient http2(TestCertificates.Issued clientCertificate) {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).connectTimeout(Duration.ofSeconds(5))
                .sslContext(HttpsClients.context(ca.authority(), clientCertificate)).build();
    }

    private static HttpRequest chat(String body, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + fixture.port()
                        + Http2IT.CHAT)).timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return b.build();
    }

    @Test
    void alpnH2_missThenHit_overHttp2() throws Exception {
        HttpClient client = http2(null);
        String body = CacheCalls.chat("over h2 " + CacheCalls.nonce());

        HttpResponse<String> first = client.send(chat(body, "Authorization", "Bearer acme-key"),
                HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> second = client.send(chat(body, "Authorization", "Bearer acme-key"),
                HttpResponse.BodyHandlers.ofString());

        assertThat(first.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(CacheCalls.xCache(first)).isEqualTo("MISS");
        assertThat(CacheCalls.xCache(second)).isEqualTo("HIT");
        assertThat(second.body()).isEqualTo(first.body());
    }

    @Test
    void streamedAnswer_overAlpnH2_readToTheEnd() throws Exception {
        String body = CacheCalls.chat("streamed over h2 " + CacheCalls.nonce(), "\"stream\":true");

        HttpResponse<String> response = http2(null).send(chat(body, "Authorization", "Bearer acme-key"),
                HttpResponse.BodyHandlers.ofString());

        assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(response.body()).contains("data: {").endsWith("data: [DONE]\n\n");
    }

    @Test
    void clientCertificate_authenticatesARequestOnAnHttp2Stream() throws Exception {
        HttpResponse<String> response = http2(acmeCert).send(chat(CacheCalls.chat("mtls h2 " + CacheCalls.nonce())),
                HttpResponse.BodyHandlers.ofString());

        assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    }

    @Test
    void http11Client_overTls_keepsHttp11() throws Exception {
        HttpResponse<String> response = HttpsClients.post(HttpsClients.client(ca.authority(), null), fixture.port(),
                Http2IT.CHAT, CacheCalls.chat("h1 over tls " + CacheCalls.nonce()), "Authorization", "Bearer acme-key");

        assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
        assertThat(response.statusCode()).isEqualTo(200);
    }

    @Test
    void adminListener_offersHttp11Only() throws Exception {
        HttpResponse<String> response = http2(null).send(HttpRequest.newBuilder(
                        URI.create("https://127.0.0.1:" + fixture.adminPort() + "/ready"))
                .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());

        assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
        assertThat(response.statusCode()).isEqualTo(200);
    }
}
