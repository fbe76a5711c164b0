package io.cachegate.gateway.server.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.TlsSettings;
import io.cachegate.testkit.TestCertificates;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The watch, one poll at a time: a changed pair is applied, a broken one leaves the running certificate. */
class ListenerTlsTest {

    private final TestCertificates ca = TestCertificates.authority("test CA");
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @TempDir
    Path dir;

    @Test
    void poll_changedPair_isServedToNewConnections() throws Exception {
        TestCertificates.Issued first = ca.server();
        try (ListenerTls tls = ListenerTls.start("proxy", settings(first), Duration.ofSeconds(10), registry)) {
            TestCertificates.Issued second = ca.server();
            second.write(dir.resolve("tls.crt"), dir.resolve("tls.key"));

            tls.poll();

            assertThat(tls.certificate().getSerialNumber()).isEqualTo(second.serial());
            assertThat(count("applied")).isEqualTo(1);
        }
    }

    @Test
    void poll_brokenPair_keepsTheRunningCertificate_andReportsItOnce() throws Exception {
        TestCertificates.Issued first = ca.server();
        try (ListenerTls tls = ListenerTls.start("proxy", settings(first), Duration.ofSeconds(10), registry)) {
            // Half a rotation: the new certificate is there, its key not yet.
            ca.server().writeCertificate(dir.resolve("tls.crt"));

            tls.poll();
            tls.poll();

            assertThat(tls.certificate().getSerialNumber()).isEqualTo(first.serial());
            assertThat(count("rejected")).isEqualTo(1);
        }
    }

    @Test
    void poll_unchangedFiles_doNothing() throws Exception {
        try (ListenerTls tls = ListenerTls.start("proxy", settings(ca.server()), Duration.ofSeconds(10), registry)) {
            tls.poll();

            assertThat(count("applied") + count("rejected")).isZero();
        }
    }

    private TlsSettings settings(TestCertificates.Issued issued) {
        issued.write(dir.resolve("tls.crt"), dir.resolve("tls.key"));
        return new TlsSettings(dir.resolve("tls.crt").toString(), dir.resolve("tls.key").toString());
    }

    private double count(String outcome) {
        return registry.get("cachegate.tls.reloads").tag("outcome", outcome).counter().count();
    }
}
