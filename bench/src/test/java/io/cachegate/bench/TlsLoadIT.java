package io.cachegate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.testkit.TestCertificates;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.time.Duration;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;

/** The load generator against an HTTPS server: answers counted as over plain HTTP, kept alive or not. */
class TlsLoadIT {

    private static final String ANSWER = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
            + "\r\n{}";

    @Test
    void run_httpsKeepAlive_answersEveryRequest_onFewConnections() throws Exception {
        try (ScriptedHttpServer server = new ScriptedHttpServer(ANSWER, false, serverTls())) {
            BenchReport report = run(server.baseUrl(), false);

            assertThat(report.errors()).isZero();
            assertThat(report.statusCounts()).containsOnlyKeys(200);
            assertThat(report.requests()).isGreaterThan(2);
        }
    }

    @Test
    void run_httpsNewConnectionPerRequest_answersEveryRequest() throws Exception {
        try (ScriptedHttpServer server = new ScriptedHttpServer(ANSWER.replace("\r\n\r\n",
                "\r\nConnection: close\r\n\r\n"), true, serverTls())) {
            BenchReport report = run(server.baseUrl(), true);

            assertThat(report.errors()).isZero();
            assertThat(report.statusCounts()).containsOnlyKeys(200);
            assertThat(report.requests()).isGreaterThan(2);
        }
    }

    /** The warm-up covers the first handshakes, which take a cold JVM seconds on a busy machine. */
    private static BenchReport run(URI target, boolean close) throws InterruptedException {
        BenchRequest request = BenchRequest.post("/v1/chat/completions",
                "{\"model\":\"m\"}".getBytes(StandardCharsets.UTF_8), false);
        BenchOptions.Builder options = BenchOptions.builder(target, RequestSources.constant(request))
                .closedLoop(2).warmup(Duration.ofSeconds(4)).duration(Duration.ofSeconds(2))
                .requestTimeout(Duration.ofSeconds(5));
        if (close) {
            options.header("Connection", "close");
        }
        return LoadGenerator.run(options.build());
    }

    private static SSLContext serverTls() throws Exception {
        TestCertificates.Issued server = TestCertificates.authority("bench test CA").server();
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("server", server.key(), new char[0], new Certificate[] {server.certificate()});
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, new char[0]);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf.getKeyManagers(), null, null);
        return context;
    }
}
