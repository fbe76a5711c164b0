package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.cachegate.testkit.Poll;
import io.cachegate.testkit.TestCertificates;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTPS on the proxy and admin listeners: answers and cache hits as over plain HTTP, plain HTTP refused with 400,
 * a client that never finishes its handshake cut off, the certificate files rotated under a running gateway.
 */
class TlsIT {

    private static final String CHAT = "/v1/chat/completions";

    private static TestCertificates ca;
    private static TestCertificates.Issued server;

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator().prepare(TlsIT::certificates)
            .policy(policy("${DIR}", "1s"));

    private static void certificates(Path dir) throws Exception {
        ca = TestCertificates.authority("cachegate test CA");
        server = ca.server();
        server.write(dir.resolve("tls.crt"), dir.resolve("tls.key"));
    }

    /** TLS on both listeners with the files in {@code files}; {@code headerTimeout} bounds the handshake too. */
    static String policy(String files, String headerTimeout) {
        String tls = "{certificate: \"%s/tls.crt\", key: \"%s/tls.key\"}".formatted(files, files);
        return """
                server: {header_timeout: %s, tls: %s, admin_tls: %s}
                backends:
                  - {name: main, timeouts: {connect: 1s, first_byte: 5s, idle: 5s, total: 30s}}
                """.formatted(headerTimeout, tls, tls);
    }

    @Test
    void https_answersAndServesHits_likePlainHttp() throws Exception {
        HttpClient client = HttpsClients.client(ca.authority(), null);
        String body = CacheCalls.chat("over tls " + CacheCalls.nonce());

        HttpResponse<String> first = HttpsClients.post(client, fixture.port(), CHAT, body);
        HttpResponse<String> second = HttpsClients.post(client, fixture.port(), CHAT, body);

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("X-Cache")).contains("MISS");
        assertThat(second.headers().firstValue("X-Cache")).contains("HIT");
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(HttpsClients.serial(first)).isEqualTo(server.serial());
        assertThat(first.sslSession().orElseThrow().getProtocol()).isEqualTo("TLSv1.3");
    }

    @Test
    void plainHttp_toTlsPort_gets400_andTheConnectionIsClosed() throws Exception {
        try (Socket socket = RawHttp.connect(fixture.port())) {
            socket.getOutputStream().write("GET /v1/models HTTP/1.1\r\nHost: localhost\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            RawHttp.Response response = RawHttp.read(in);

            assertThat(response.status()).isEqualTo(400);
            assertThat(response.body()).contains("\"code\":\"https_required\"");
            assertThat(in.read()).as("closed after the answer").isEqualTo(-1);
        }
    }

    @Test
    void clientThatNeverFinishesTheHandshake_isCutOff() throws Exception {
        try (Socket socket = RawHttp.connect(fixture.port())) {
            OutputStream out = socket.getOutputStream();
            out.write(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01}); // a ClientHello record begun, never ended
            out.flush();
            long start = System.nanoTime();

            assertThat(socket.getInputStream().read()).isEqualTo(-1);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        }
        assertThat(fixture.gateway().metrics().registry().get("cachegate.tls.handshakes.failed").tag("listener", "proxy")
                .counter().count()).isPositive();
    }

    @Test
    void admin_overTls() throws Exception {
        HttpResponse<String> health = HttpsClients.get(HttpsClients.client(ca.authority(), null),
                fixture.adminPort(), "/ready");

        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(RawHttp.exchange(fixture.adminPort(), "GET /ready HTTP/1.1\r\nHost: localhost\r\n\r\n").status())
                .isEqualTo(400);
    }

    @Test
    void curl_withTheCaFile_getsAnAnswer() throws Exception {
        assumeThat(Files.isExecutable(Path.of("/usr/bin/curl"))).as("curl installed").isTrue();
        Path caFile = ca.authority().writeCertificate(fixture.dir().resolve("ca.crt"));
        Process curl = new ProcessBuilder("/usr/bin/curl", "-sS", "--cacert", caFile.toString(),
                "-H", "Content-Type: application/json", "-d", CacheCalls.chat("curl " + System.nanoTime()),
                "-o", "/dev/null", "-w", "%{http_code} %{ssl_verify_result}",
                "https://localhost:" + fixture.port() + CHAT).redirectErrorStream(true).start();

        assertThat(curl.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("200 0");
    }

    @Test
    void rotatedCertificate_servesNewConnections_oldOnesKeepWorking_brokenOneIsRefused(@TempDir Path files)
            throws Exception {
        server.write(files.resolve("tls.crt"), files.resolve("tls.key"));
        try (Gateway gw = fixture.startAnother(policy(path(files), "10s"));
             SSLSocket old = HttpsClients.socket(ca.authority(), gw.port())) {
            assertThat(HttpsClients.serial(old)).isEqualTo(server.serial());

            // A key that belongs to another certificate: refused, the running certificate stays.
            TestCertificates.writeAtomically(files.resolve("tls.key"), ca.server().keyPem());
            assertThat(Poll.until(Duration.ofSeconds(5), () -> reloads(gw, "rejected") >= 1)).isTrue();
            assertThat(serialOfNewConnection(gw)).isEqualTo(server.serial());

            TestCertificates.Issued next = ca.server();
            next.write(files.resolve("tls.crt"), files.resolve("tls.key"));
            assertThat(Poll.until(Duration.ofSeconds(5), () -> newSerial(gw).equals(next.serial())))
                    .as("new connections get the new certificate within the poll interval").isTrue();
            assertThat(reloads(gw, "applied")).isEqualTo(1);

            OutputStream out = old.getOutputStream();
            out.write("GET /v1/models HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(RawHttp.read(old.getInputStream()).status()).as("the old connection still answers")
                    .isEqualTo(200);
            assertThat(HttpsClients.serial(old)).isEqualTo(server.serial());
        }
    }

    @Test
    void unusableFiles_refuseTheStart(@TempDir Path files) throws Exception {
        TestCertificates.Issued issued = ca.server();
        issued.write(files.resolve("tls.crt"), files.resolve("tls.key"));
        TestCertificates.writeAtomically(files.resolve("tls.key"), issued.traditionalKeyPem());

        assertThatThrownBy(() -> fixture.startAnother(policy(path(files), "10s")))
                .isInstanceOf(StartRefusedException.class)
                .hasMessageContaining("server.tls: ").hasMessageContaining("openssl pkcs8 -topk8 -nocrypt");
    }

    private static String path(Path files) {
        return files.toString().replace('\\', '/');
    }

    private static double reloads(Gateway gw, String outcome) {
        return gw.metrics().registry().get("cachegate.tls.reloads").tag("listener", "proxy").tag("outcome", outcome)
                .counter().count();
    }

    private static BigInteger newSerial(Gateway gw) {
        try {
            return serialOfNewConnection(gw);
        } catch (Exception e) {
            return BigInteger.ZERO;
        }
    }

    private static BigInteger serialOfNewConnection(Gateway gw) throws Exception {
        HttpResponse<String> models = HttpsClients.get(HttpsClients.client(ca.authority(), null), gw.port(),
                "/v1/models");
        assertThat(models.statusCode()).isEqualTo(200);
        return HttpsClients.serial(models);
    }
}
