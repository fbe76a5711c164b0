package io.cachegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.simulator.BackendSimulator;
import io.cachegate.simulator.SimulatorOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The probe's lock-out, scaled down: silent sockets fill {@code server.max_connections} (6 here, from three
 * addresses). Before, every other client was refused until the idle timeout closed them (60 s by default); now a
 * new client's connection closes one that has been idle a second or more, and the client is served.
 */
class ConnectionShedIT {

    private static BackendSimulator sim;
    private static Gateway gateway;

    @BeforeAll
    static void start() throws Exception {
        sim = BackendSimulator.start(SimulatorOptions.defaults());
        gateway = Gateway.start(TestPolicies.parse(TestPolicies.yaml(List.of(sim.baseUrl()), "2s", """
                  max_connections: 6
                  idle_timeout: 60s
                """, "")));
    }

    @AfterAll
    static void stop() throws Exception {
        Closing.all(gateway, sim);
    }

    @Test
    void silentSocketsAtTheCap_aNewClientIsServed_andOneIdleSocketClosed() throws Exception {
        List<Socket> silent = new ArrayList<>();
        try {
            for (int i = 0; i < 6; i++) {
                Socket s = new Socket();
                s.bind(new InetSocketAddress(InetAddress.getByName("127.0.0." + (1 + i % 3)), 0));
                s.connect(new InetSocketAddress("127.0.0.1", gateway.port()), 5000);
                silent.add(s);
            }
            // Wait for all six to be counted in, then past the minimum idle time.
            assertThat(Poll.until(Duration.ofSeconds(5),
                    () -> gateway.metrics().scrape().contains("cachegate_connections_active 6.0"))).isTrue();
            Thread.sleep(1_100);

            HttpResponse<String> answer = RawHttp.post(gateway.port(), "/v1/chat/completions",
                    "{\"model\":\"llama-3.1-8b\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":2}");

            assertThat(answer.statusCode()).isEqualTo(200);
            String scrape = gateway.metrics().scrape();
            assertThat(scrape).contains("cachegate_connections_shed_total 1.0")
                    .doesNotContain("cachegate_connections_refused_total{reason=\"total\"}");
            assertThat(silent.stream().filter(ConnectionShedIT::closedByPeer).count()).isEqualTo(1);
        } finally {
            for (Socket s : silent) {
                s.close();
            }
        }
    }

    private static boolean closedByPeer(Socket s) {
        try {
            s.setSoTimeout(200);
            return s.getInputStream().read() == -1;
        } catch (IOException e) {
            return !(e instanceof java.net.SocketTimeoutException);
        }
    }
}
