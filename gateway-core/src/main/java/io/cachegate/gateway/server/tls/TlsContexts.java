package io.cachegate.gateway.server.tls;

import io.cachegate.config.ClientAuth;
import io.cachegate.config.TlsSettings;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;

/**
 * Builds a server {@link SslContext} from a listener's PEM files, refusing what would only fail later, at a
 * client's handshake: a key that is not PKCS#8, a key that does not belong to the certificate, a certificate that
 * has expired or is not valid yet. Netty's JDK provider (no native library to ship; see docs/benchmarks.md for
 * its cost), TLS 1.3 and 1.2, ALPN offering {@code http/1.1}, and {@code h2} first on a listener that speaks it
 * (a client without ALPN gets HTTP/1.1).
 */
public final class TlsContexts {

    private static final Pattern PKCS8 = Pattern.compile(
            "-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");
    private static final Pattern ANY_KEY = Pattern.compile("-----BEGIN ([A-Z ]*)PRIVATE KEY-----");
    private static final List<String> KEY_ALGORITHMS = List.of("RSA", "EC", "Ed25519", "Ed448");

    private TlsContexts() {
    }

    /** The context {@code settings} describe, or an exception whose message says what is wrong with which file. */
    public static Built build(TlsSettings settings) throws TlsFileException {
        return build(settings, false);
    }

    /** As {@link #build(TlsSettings)}; with {@code http2}, ALPN offers {@code h2} before {@code http/1.1}. */
    public static Built build(TlsSettings settings, boolean http2) throws TlsFileException {
        List<X509Certificate> chain = certificates(settings.certificate());
        PrivateKey key = privateKey(settings.key());
        X509Certificate leaf = chain.get(0);
        checkValidity(settings.certificate(), leaf);
        checkPair(settings, leaf, key);
        try {
            SslContextBuilder builder = SslContextBuilder.forServer(key, chain.toArray(X509Certificate[]::new))
                    .sslProvider(SslProvider.JDK)
                    .protocols("TLSv1.3", "TLSv1.2")
                    .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                            protocols(http2)));
            if (settings.clientAuth() != ClientAuth.NONE) {
                List<X509Certificate> cas = certificates(settings.clientCa().orElseThrow());
                builder.trustManager(cas.toArray(X509Certificate[]::new))
                        .clientAuth(settings.clientAuth() == ClientAuth.REQUIRE
                                ? io.netty.handler.ssl.ClientAuth.REQUIRE : io.netty.handler.ssl.ClientAuth.OPTIONAL);
            }
            return new Built(builder.build(), leaf);
        } catch (SSLException e) {
            throw new TlsFileException(settings.certificate() + ": " + e.getMessage());
        }
    }

    private static String[] protocols(boolean http2) {
        return http2 ? new String[] {ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1}
                : new String[] {ApplicationProtocolNames.HTTP_1_1};
    }

    /** A context and the certificate it presents. */
    public record Built(SslContext context, X509Certificate certificate) {
    }

    private static List<X509Certificate> certificates(String file) throws TlsFileException {
        byte[] bytes = read(file);
        try {
            List<X509Certificate> out = CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(bytes)).stream()
                    .map(X509Certificate.class::cast).toList();
            if (out.isEmpty()) {
                throw new TlsFileException(file + ": no PEM certificate in it (-----BEGIN CERTIFICATE-----)");
            }
            return out;
        } catch (CertificateException e) {
            throw new TlsFileException(file + ": not a PEM certificate: " + e.getMessage());
        }
    }

    private static PrivateKey privateKey(String file) throws TlsFileException {
        String text = new String(read(file), StandardCharsets.US_ASCII);
        Matcher pkcs8 = PKCS8.matcher(text);
        if (!pkcs8.find()) {
            Matcher other = ANY_KEY.matcher(text);
            throw new TlsFileException(file + (other.find()
                    ? ": a " + other.group(1) + "PRIVATE KEY; the gateway reads PKCS#8 (BEGIN PRIVATE KEY, not"
                            + " encrypted): convert it with openssl pkcs8 -topk8 -nocrypt -in " + file
                    : ": no PEM private key in it (-----BEGIN PRIVATE KEY-----)"));
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(pkcs8.group(1));
        } catch (IllegalArgumentException e) {
            throw new TlsFileException(file + ": the private key is not valid base64");
        }
        for (String algorithm : KEY_ALGORITHMS) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                // not this algorithm: try the next
            }
        }
        throw new TlsFileException(file + ": not an RSA, EC or EdDSA private key");
    }

    private static void checkValidity(String file, X509Certificate leaf) throws TlsFileException {
        try {
            leaf.checkValidity(new Date());
        } catch (CertificateException e) {
            throw new TlsFileException(file + ": the certificate is valid only from " + leaf.getNotBefore()
                    + " to " + leaf.getNotAfter());
        }
    }

    /** The key signs a random challenge that the certificate's public key must verify. */
    private static void checkPair(TlsSettings settings, X509Certificate leaf, PrivateKey key) throws TlsFileException {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default -> key.getAlgorithm(); // Ed25519, Ed448
        };
        byte[] challenge = new byte[32];
        new SecureRandom().nextBytes(challenge);
        boolean matches;
        try {
            Signature sign = Signature.getInstance(algorithm);
            sign.initSign(key);
            sign.update(challenge);
            byte[] signature = sign.sign();
            Signature verify = Signature.getInstance(algorithm);
            verify.initVerify(leaf.getPublicKey());
            verify.update(challenge);
            matches = verify.verify(signature);
        } catch (GeneralSecurityException e) {
            matches = false; // e.g. an EC key for an RSA certificate
        }
        if (!matches) {
            throw new TlsFileException(settings.key() + ": this key does not belong to the certificate in "
                    + settings.certificate());
        }
    }

    private static byte[] read(String file) throws TlsFileException {
        try {
            return Files.readAllBytes(Path.of(file));
        } catch (IOException e) {
            throw new TlsFileException(file + ": cannot be read (" + e.getClass().getSimpleName() + ")");
        }
    }
}
