package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.testkit.Poll;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The probe's lock-out, scaled down: silent sockets fill {@code server.max_connections} (6 here, from three
 * addresses). Before, every other client was refused until the idle timeout closed them (60 s by default); now a
 * new client's connection closes one that has been idle a second or more, and the client is served.
 */
class ConnectionShedIT {

    @RegisterExtension
    static final GatewayFixture fixture = GatewayFixture.withSimulator().policy("""
            server: {max_connections: 6, idle_timeout: 60s}
            """);

    @Test
    void silentSocketsAtTheCap_aNewClientIsServed_andOneIdleSocketClosed() throws Exception {
        assertServedPastSilentSockets(new byte[0]);
    }

    @Test
    void idleHttp2ConnectionsAtTheCap_aNewClientIsServed() throws Exception {
        // The prior-knowledge preface and empty SETTINGS: an HTTP/2 connection with no stream open, idle.
        byte[] preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\4\0\0\0\0\0".getBytes(StandardCharsets.ISO_8859_1);
        assertServedPastSilentSockets(preface);
    }

    /** Six connections that each send {@code first} and nothing more, then a client's request. */
    private static void assertServedPastSilentSockets(byte[] first) throws Exception {
        List<Socket> silent = new ArrayList<>();
        try {
            for (int i = 0; i < 6; i++) {
                Socket s = new Socket();
                s.bind(new InetSocketAddress(InetAddress.getByName("127.0.0." + (1 + i % 3)), 0));
                s.connect(new InetSocketAddress("127.0.0.1", fixture.port()), 5000);
                s.getOutputStream().write(first);
                silent.add(s);
            }
            // Wait for all six to be counted in, then past the minimum idle time.
            assertThat(Poll.until(Duration.ofSeconds(5),
                    () -> fixture.gateway().metrics().scrape().contains("cachegate_connections_active 6.0"))).isTrue();
            Thread.sleep(1_100);

            double shedBefore = shed();
            // On a connection of its own, closed after: a pooled one would stay counted into the next test.
            try (Socket client = RawHttp.connect(fixture.port())) {
                client.getOutputStream().write(RawHttp.rawPost("/v1/chat/completions", ("{\"model\":\"llama-3.1-8b\","
                        + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":2}")
                        .getBytes(StandardCharsets.UTF_8)));
                assertThat(RawHttp.read(client.getInputStream()).status()).isEqualTo(200);
            }
            assertThat(shed() - shedBefore).isEqualTo(1.0);
            assertThat(fixture.gateway().metrics().scrape()).doesNotContain("cachegate_connections_refused_total{reason=\"total\"}");
            assertThat(silent.stream().filter(ConnectionShedIT::closedByPeer).count()).isEqualTo(1);
        } finally {
            for (Socket s : silent) {
                s.close();
            }
            // The next test starts with none counted.
            assertThat(Poll.until(Duration.ofSeconds(5),
                    () -> fixture.gateway().metrics().scrape().contains("cachegate_connections_active 0.0"))).isTrue();
        }
    }

    private static double shed() {
        return fixture.gateway().metrics().scrape().lines().filter(l -> l.startsWith("cachegate_connections_shed_total "))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.indexOf(' ') + 1))).sum();
    }

    /** True when the gateway closed {@code s}: whatever it wrote first (HTTP/2 SETTINGS, a GOAWAY), then the end. */
    private static boolean closedByPeer(Socket s) {
        try {
            s.setSoTimeout(200);
            byte[] buffer = new byte[1024];
            while (true) {
                if (s.getInputStream().read(buffer) == -1) {
                    return true;
                }
            }
        } catch (SocketTimeoutException open) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }
}
