package io.cachegate.gateway.server.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cachegate.config.ClientAuth;
import io.cachegate.config.TlsSettings;
import io.cachegate.testkit.TestCertificates;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TlsContextsTest {

    private final TestCertificates ca = TestCertificates.authority("test CA");

    @TempDir
    Path dir;

    @Test
    void build_pkcs8Pair_presentsTheCertificate() throws Exception {
        TestCertificates.Issued server = ca.server();

        TlsContexts.Built built = TlsContexts.build(write(server));

        assertThat(built.certificate().getSerialNumber()).isEqualTo(server.serial());
        assertThat(built.context().isServer()).isTrue();
        assertThat(built.context().applicationProtocolNegotiator().protocols()).containsExactly("http/1.1");
    }

    @Test
    void build_forHttp2_offersH2First_thenHttp11() throws Exception {
        TlsContexts.Built built = TlsContexts.build(write(ca.server()), true);

        assertThat(built.context().applicationProtocolNegotiator().protocols()).containsExactly("h2", "http/1.1");
    }

    @Test
    void build_withClientCa_asksForClientCertificates() throws Exception {
        TlsSettings plain = write(ca.server());
        TlsSettings mutual = new TlsSettings(plain.certificate(), plain.key(),
                Optional.of(ca.authority().writeCertificate(dir.resolve("ca.crt")).toString()), ClientAuth.REQUIRE);

        assertThat(TlsContexts.build(mutual).context().newEngine(io.netty.buffer.ByteBufAllocator.DEFAULT)
                .getNeedClientAuth()).isTrue();
    }

    @Test
    void build_traditionalKey_isRefusedWithTheConversionCommand() {
        TestCertificates.Issued server = ca.server();
        TlsSettings settings = write(server);
        TestCertificates.writeAtomically(Path.of(settings.key()), server.traditionalKeyPem());

        assertThatThrownBy(() -> TlsContexts.build(settings)).isInstanceOf(TlsFileException.class)
                .hasMessageContaining("a EC PRIVATE KEY").hasMessageContaining("openssl pkcs8 -topk8 -nocrypt");
    }

    @Test
    void build_keyOfAnotherCertificate_isRefused() {
        TlsSettings settings = write(ca.server());
        TestCertificates.writeAtomically(Path.of(settings.key()), ca.server().keyPem());

        assertThatThrownBy(() -> TlsContexts.build(settings)).isInstanceOf(TlsFileException.class)
                .hasMessageContaining("this key does not belong to the certificate");
    }

    @Test
    void build_expiredCertificate_isRefused() {
        TlsSettings settings = write(ca.server(Duration.ofMinutes(-1)));

        assertThatThrownBy(() -> TlsContexts.build(settings)).isInstanceOf(TlsFileException.class)
                .hasMessageContaining("the certificate is valid only from");
    }

    @Test
    void build_noCertificateInTheFile_isRefused() {
        TlsSettings settings = write(ca.server());
        TestCertificates.writeAtomically(Path.of(settings.certificate()), "not a certificate\n");

        assertThatThrownBy(() -> TlsContexts.build(settings)).isInstanceOf(TlsFileException.class)
                .hasMessageContaining(settings.certificate());
    }

    private TlsSettings write(TestCertificates.Issued issued) {
        Path cert = issued.write(dir.resolve("tls.crt"), dir.resolve("tls.key"));
        return new TlsSettings(cert.toString(), dir.resolve("tls.key").toString());
    }
}
