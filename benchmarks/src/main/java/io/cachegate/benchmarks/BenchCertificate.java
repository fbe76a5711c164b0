package io.cachegate.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throwaway self-signed ECDSA P-256 certificate for {@code localhost}/{@code 127.0.0.1}, made by the JDK's own
 * {@code keytool} (so no certificate library ships in the cachegate jar) and written as the PEM pair a gateway's
 * {@code server.tls} reads. The bench client trusts any certificate, so self-signed is enough.
 */
record BenchCertificate(Path certificate, Path key) {

    private static final char[] PASSWORD = "bench-only".toCharArray();

    static BenchCertificate create(Path dir) throws IOException, InterruptedException {
        Path store = dir.resolve("bench-tls.p12");
        Path java = Path.of(ProcessHandle.current().info().command().orElse("java"));
        Path keytool = java.getParent() == null ? Path.of("keytool") : java.resolveSibling("keytool");
        Process p = new ProcessBuilder(List.of(keytool.toString(), "-genkeypair", "-alias", "gateway",
                "-keyalg", "EC", "-groupname", "secp256r1", "-sigalg", "SHA256withECDSA", "-validity", "2",
                "-dname", "CN=localhost", "-ext", "san=dns:localhost,ip:127.0.0.1", "-storetype", "PKCS12",
                "-keystore", store.toString(), "-storepass", new String(PASSWORD)))
                .redirectErrorStream(true).redirectOutput(dir.resolve("keytool.log").toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException(keytool + " could not make a certificate; see " + dir.resolve("keytool.log"));
        }
        try (InputStream in = Files.newInputStream(store)) {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(in, PASSWORD);
            Key key = keys.getKey("gateway", PASSWORD);
            Certificate cert = keys.getCertificate("gateway");
            Path certFile = Files.writeString(dir.resolve("bench-tls.crt"), pem("CERTIFICATE", cert.getEncoded()));
            Path keyFile = Files.writeString(dir.resolve("bench-tls.key"), pem("PRIVATE KEY", key.getEncoded()));
            return new BenchCertificate(certFile, keyFile);
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot read the certificate keytool made: " + e.getMessage(), e);
        }
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
