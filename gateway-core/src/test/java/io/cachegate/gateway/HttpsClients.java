package io.cachegate.gateway;

import io.cachegate.testkit.TestCertificates;
import java.io.IOException;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/** JDK clients that trust one test CA and, if given one, present a client certificate. */
final class HttpsClients {

    private HttpsClients() {
    }

    static SSLContext context(TestCertificates.Issued ca, TestCertificates.Issued client) {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", ca.certificate());
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            KeyManagerFactory kmf = null;
            if (client != null) {
                KeyStore keys = KeyStore.getInstance("PKCS12");
                keys.load(null, null);
                keys.setKeyEntry("client", client.key(), new char[0], new Certificate[] {client.certificate()});
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(keys, new char[0]);
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A new client: its own connection pool, so its first request opens a new connection. */
    static HttpClient client(TestCertificates.Issued ca, TestCertificates.Issued client) {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5))
                .sslContext(context(ca, client)).build();
    }

    static HttpResponse<String> post(HttpClient client, int port, String path, String json, String... headers)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> get(HttpClient client, int port, String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).GET();
        if (headers.length > 0) {
            b.headers(headers);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The serial of the certificate the server presented for {@code response}. */
    static BigInteger serial(HttpResponse<?> response) throws Exception {
        return ((X509Certificate) response.sslSession().orElseThrow().getPeerCertificates()[0]).getSerialNumber();
    }

    /** A TLS socket with the handshake done, for a connection kept open across a rotation. */
    static SSLSocket socket(TestCertificates.Issued ca, int port) throws IOException {
        SSLSocket socket = (SSLSocket) context(ca, null).getSocketFactory().createSocket("127.0.0.1", port);
        socket.setSoTimeout(15_000);
        socket.startHandshake();
        return socket;
    }

    static BigInteger serial(SSLSocket socket) throws IOException {
        return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSerialNumber();
    }
}
