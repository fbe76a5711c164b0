package io.cachegate.testkit;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throwaway certificate authority for tests and benchmarks: ECDSA P-256 keys made on the fly, certificates
 * signed with BouncyCastle's builder (the JDK has no public API for it), written as PEM. Nothing it makes is
 * meant to outlive the run; no key is ever committed.
 */
public final class TestCertificates {

    private static final SecureRandom RANDOM = new SecureRandom();
    /** Serials are unique in the run, so a test can tell two certificates for the same name apart. */
    private static final AtomicLong SERIALS = new AtomicLong(System.nanoTime() & 0xFFFF_FFFFL);

    private final Issued authority;

    private TestCertificates(Issued authority) {
        this.authority = authority;
    }

    /** A new self-signed CA named {@code name}. */
    public static TestCertificates authority(String name) {
        KeyPair pair = keyPair();
        X500Name subject = new X500Name("CN=" + name);
        X509Certificate cert = sign(subject, subject, pair, pair.getPrivate(), Duration.ofDays(1), builder -> {
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        });
        return new TestCertificates(new Issued(cert, pair.getPrivate()));
    }

    /** The CA's own certificate and key. */
    public Issued authority() {
        return authority;
    }

    /** A server certificate for {@code localhost} and {@code 127.0.0.1}, valid for a day. */
    public Issued server() {
        return server(Duration.ofDays(1));
    }

    /** A server certificate for {@code localhost} and {@code 127.0.0.1} that expires after {@code validity}. */
    public Issued server(Duration validity) {
        return issue("localhost", validity, KeyPurposeId.id_kp_serverAuth, true);
    }

    /** A client certificate with subject {@code CN=commonName}. */
    public Issued client(String commonName) {
        return issue(commonName, Duration.ofDays(1), KeyPurposeId.id_kp_clientAuth, false);
    }

    private Issued issue(String commonName, Duration validity, KeyPurposeId purpose, boolean localNames) {
        KeyPair pair = keyPair();
        X509Certificate cert = sign(new X500Name(authority.certificate().getSubjectX500Principal().getName()),
                new X500Name("CN=" + commonName), pair, authority.key(), validity, builder -> {
                    builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
                    builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
                    if (localNames) {
                        builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(
                                new GeneralName[] {new GeneralName(GeneralName.dNSName, "localhost"),
                                    new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
                    }
                });
        return new Issued(cert, pair.getPrivate());
    }

    private interface Extensions {
        void add(X509v3CertificateBuilder builder) throws IOException;
    }

    private static X509Certificate sign(X500Name issuer, X500Name subject, KeyPair pair, PrivateKey signer,
                                        Duration validity, Extensions extensions) {
        Instant now = Instant.now();
        try {
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(issuer,
                    BigInteger.valueOf(SERIALS.incrementAndGet()), Date.from(now.minus(Duration.ofMinutes(5))),
                    Date.from(now.plus(validity)), subject, pair.getPublic());
            extensions.add(builder);
            return new JcaX509CertificateConverter().getCertificate(builder.build(
                    new JcaContentSignerBuilder("SHA256withECDSA").build(signer)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static KeyPair keyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * One certificate and its private key.
     */
    public record Issued(X509Certificate certificate, PrivateKey key) {

        public BigInteger serial() {
            return certificate.getSerialNumber();
        }

        /** SHA-256 of the DER certificate, as {@code openssl x509 -fingerprint -sha256} prints it. */
        public String fingerprint() {
            try {
                byte[] digest = MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded());
                List<String> pairs = new ArrayList<>();
                for (byte b : digest) {
                    pairs.add(HexFormat.of().withUpperCase().toHexDigits(b));
                }
                return String.join(":", pairs);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        }

        /** The certificate as PEM. */
        public String certificatePem() {
            return pem("CERTIFICATE", encoded());
        }

        /** The key as PKCS#8 PEM ({@code BEGIN PRIVATE KEY}), the form the gateway reads. */
        public String keyPem() {
            return pem("PRIVATE KEY", key.getEncoded());
        }

        /** The key in OpenSSL's traditional form ({@code BEGIN EC PRIVATE KEY}), which the gateway refuses. */
        public String traditionalKeyPem() {
            StringWriter out = new StringWriter();
            try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
                writer.writeObject(key);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return out.toString();
        }

        /** Writes the certificate and key PEM files (replacing them) and returns {@code certificate}. */
        public Path write(Path certificate, Path key) {
            writeAtomically(certificate, certificatePem());
            writeAtomically(key, keyPem());
            return certificate;
        }

        /** Writes the certificate alone as PEM (e.g. a CA file) and returns {@code file}. */
        public Path writeCertificate(Path file) {
            writeAtomically(file, certificatePem());
            return file;
        }

        private byte[] encoded() {
            try {
                return certificate.getEncoded();
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** Written beside, then moved: a watcher never reads half a file. */
    public static void writeAtomically(Path file, String text) {
        try {
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(tmp, text, StandardCharsets.US_ASCII);
            Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
